import { BASKET_ITEM_LIMIT } from "../../shared/basket";
import type { Product } from "../../shared/catalogue";
import { sumCents } from "../../shared/money";

/** One stored item: its own id (insertion order) and the product it holds. */
export interface StoredItem {
  itemId: string;
  productId: string;
}

/**
 * The basket's rules as plain functions over the stored items; the service runs them inside a transaction
 * that holds the basket's row lock, then writes what they decide.
 */

/** Adding appends (duplicates allowed) unless the basket is full. */
export function canAddItem(items: readonly StoredItem[]): boolean {
  return items.length < BASKET_ITEM_LIMIT;
}

/** Removing takes out the first item with the product id; null when no item matches. */
export function findItemToRemove(items: readonly StoredItem[], productId: string): StoredItem | null {
  return items.find((item) => item.productId === productId) ?? null;
}

/**
 * After an order: for each paid product id, the first remaining item holding it. Items beyond what was paid for
 * (added after the payment was priced) are not among them.
 */
export function findPaidItems(items: readonly StoredItem[], paidProductIds: readonly string[]): StoredItem[] {
  const remaining = [...items];
  const paid: StoredItem[] = [];
  for (const productId of paidProductIds) {
    const item = findItemToRemove(remaining, productId);
    if (!item) continue;
    paid.push(item);
    remaining.splice(remaining.indexOf(item), 1);
  }
  return paid;
}

/** Prices the items from the catalogue, in integer cents. Items whose product left the catalogue are skipped. */
export function priceItems(items: readonly StoredItem[], products: ReadonlyMap<string, Product>) {
  const lines = items.flatMap((item) => {
    const product = products.get(item.productId);
    return product ? [{ itemId: item.itemId, product }] : [];
  });
  return { items: lines, count: lines.length, subtotalCents: sumCents(lines.map((line) => line.product.priceCents)) };
}
