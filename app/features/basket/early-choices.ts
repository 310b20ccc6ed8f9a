/**
 * Quantities chosen in a basket line's select before the page's script took it over. React makes each select show
 * the server's quantity again as it hydrates the page; what the shopper chose is read from the page just before
 * (a select whose value is not the one it was drawn with, data-quantity), or as it is chosen until the line's form
 * is live, and sent then.
 * Run as the basket line's module is first evaluated: for the page the browser opened, that is before React
 * hydrates it (React Router imports the page's route modules first), and no other page pays for it.
 */
const chosen = new Map<string, string>();
/** The lines whose form is live: their selects' choices are the form's own. */
const live = new Set<string>();

function keepEarlyChoices(): void {
  for (const select of document.querySelectorAll<HTMLSelectElement>("select[data-product]")) {
    if (select.value !== select.dataset.quantity) chosen.set(select.dataset.product!, select.value);
  }
  // A choice made while React hydrates is lost the same way, and sooner: the choice's "input" event makes React
  // hydrate the select at once, which draws the server's quantity back before any handler of React's reads it. These
  // listeners run first (added before React's, on the same document), while the select still shows the choice.
  document.addEventListener("input", keepChoice, true);
  document.addEventListener("change", keepChoice, true);
}

function keepChoice(event: Event): void {
  const select = event.target;
  if (!(select instanceof HTMLSelectElement)) return;
  const productId = select.dataset.product;
  if (productId !== undefined && !live.has(productId) && select.value !== select.dataset.quantity)
    chosen.set(productId, select.value);
}

/** The quantity chosen for a product's line before its form was live, once: its later choices are the form's. */
export function takeEarlyChoice(productId: string): number | undefined {
  live.add(productId);
  const quantity = chosen.get(productId);
  chosen.delete(productId);
  return quantity === undefined ? undefined : Number(quantity);
}

if (typeof document !== "undefined") keepEarlyChoices();
