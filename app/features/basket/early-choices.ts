/**
 * Quantities chosen in a basket line's select before the page's script took it over. React makes each select show
 * the server's quantity again as it hydrates the page; what the shopper chose is read from the page just before
 * (a select whose value is not the one it was drawn with, data-quantity) and sent once the line's form is live.
 * Run as the basket line's module is first evaluated: for the page the browser opened, that is before React
 * hydrates it (React Router imports the page's route modules first), and no other page pays for it.
 */
const chosen = new Map<string, string>();

function keepEarlyChoices(): void {
  for (const select of document.querySelectorAll<HTMLSelectElement>("select[data-product]")) {
    if (select.value !== select.dataset.quantity) chosen.set(select.dataset.product!, select.value);
  }
}

/** The quantity chosen for a product's line before the page was live, once: later renders see none. */
export function takeEarlyChoice(productId: string): number | undefined {
  const quantity = chosen.get(productId);
  chosen.delete(productId);
  return quantity === undefined ? undefined : Number(quantity);
}

if (typeof document !== "undefined") keepEarlyChoices();
