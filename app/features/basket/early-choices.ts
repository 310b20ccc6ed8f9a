/**
 * Quantities chosen in a basket line's select before the page's script has taken it over. React makes the select
 * show the server's quantity again when it hydrates the page; what the shopper chose meanwhile is kept here (read
 * from the page as the script starts, and from every change until hydration) and sent once the form is live.
 */
const chosen = new Map<string, number>();

/** A line's form: its product and its select. */
function lineOf(select: HTMLSelectElement): { productId: string; quantity: number } | null {
  if (select.name !== "quantity") return null;
  const form = select.form;
  const productId = form?.querySelector<HTMLInputElement>('input[name="productId"]')?.value;
  const quantity = Number(select.value);
  return form?.classList.contains("quantity-form") && productId && Number.isInteger(quantity) ? { productId, quantity } : null;
}

/** Starts keeping choices: the ones already made (a select showing other than its server-drawn option), then each change. */
export function keepEarlyChoices(document: Document): void {
  for (const select of document.querySelectorAll<HTMLSelectElement>("form.quantity-form select")) {
    const line = lineOf(select);
    const drawn = [...select.options].find((option) => option.defaultSelected)?.value;
    if (line && drawn !== undefined && select.value !== drawn) chosen.set(line.productId, line.quantity);
  }
  document.addEventListener(
    "change",
    (event) => {
      if (!(event.target instanceof HTMLSelectElement) || event.target.dataset.hydrated === "true") return;
      const line = lineOf(event.target);
      if (line) chosen.set(line.productId, line.quantity);
    },
    true,
  );
}

/** The quantity chosen for a product's line before the page was live, once: later renders see none. */
export function takeEarlyChoice(productId: string): number | undefined {
  const quantity = chosen.get(productId);
  chosen.delete(productId);
  return quantity;
}
