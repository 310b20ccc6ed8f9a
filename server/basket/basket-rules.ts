import { BASKET_ITEM_LIMIT, BASKET_LINE_LIMIT, type BasketLineView } from "../../shared/basket";
import type { Product } from "../../shared/catalogue";
import { sumCents } from "../../shared/money";

/** One stored line: its own id (the order lines were first added in), the product, how many, and the price when added. */
export interface StoredLine {
  lineId: string;
  productId: string;
  quantity: number;
  addedPriceCents: number;
}

/**
 * The basket's rules as plain functions over the stored lines; the service runs them inside a transaction that
 * holds the basket's row lock, then writes what they decide.
 */

/** The number of items in the basket: the sum of its quantities. */
export function countItems(lines: readonly StoredLine[]): number {
  return lines.reduce((sum, line) => sum + line.quantity, 0);
}

export function findLine(lines: readonly StoredLine[], productId: string): StoredLine | null {
  return lines.find((line) => line.productId === productId) ?? null;
}

/**
 * Whether the product's line may hold `quantity`: null when it may, else why not. The line limit is checked first,
 * so a shopper at both limits hears about the one a smaller number would not fix.
 */
export function refuseQuantity(lines: readonly StoredLine[], productId: string, quantity: number): "BASKET_LINE_FULL" | "BASKET_FULL" | null {
  if (quantity > BASKET_LINE_LIMIT) return "BASKET_LINE_FULL";
  const others = countItems(lines.filter((line) => line.productId !== productId));
  return others + quantity > BASKET_ITEM_LIMIT ? "BASKET_FULL" : null;
}

/** A product paid for, and how many of it. */
export interface PaidQuantity {
  productId: string;
  quantity: number;
}

/**
 * After an order: each line's quantity once the paid quantities are taken out (0: the line goes). Items beyond what
 * was paid for (added after the payment was priced) stay; a paid product no longer in the basket changes nothing.
 */
export function subtractPaid(lines: readonly StoredLine[], paid: readonly PaidQuantity[]): { line: StoredLine; quantity: number }[] {
  const paidByProduct = new Map<string, number>();
  for (const item of paid) paidByProduct.set(item.productId, (paidByProduct.get(item.productId) ?? 0) + item.quantity);
  return lines.flatMap((line) => {
    const paidQuantity = paidByProduct.get(line.productId);
    return paidQuantity ? [{ line, quantity: Math.max(0, line.quantity - paidQuantity) }] : [];
  });
}

/**
 * Merges a guest's lines into an account's (at sign-in): quantities of one product add up, within the line limit and
 * then the basket limit, in the guest's order. Returns each account line's new quantity (new lines with lineId null)
 * and how many items did not fit.
 */
export function mergeLines(
  accountLines: readonly StoredLine[],
  guestLines: readonly StoredLine[],
): { changes: { productId: string; lineId: string | null; quantity: number; addedPriceCents: number }[]; moved: number; dropped: number } {
  const merged = new Map(accountLines.map((line) => [line.productId, { ...line }]));
  let room = BASKET_ITEM_LIMIT - countItems(accountLines);
  const changes = new Map<string, { productId: string; lineId: string | null; quantity: number; addedPriceCents: number }>();
  let moved = 0;
  for (const guest of guestLines) {
    const existing = merged.get(guest.productId);
    const fits = Math.min(guest.quantity, BASKET_LINE_LIMIT - (existing?.quantity ?? 0), room);
    if (fits <= 0) continue;
    const quantity = (existing?.quantity ?? 0) + fits;
    const line = existing ?? { lineId: "", productId: guest.productId, quantity: 0, addedPriceCents: guest.addedPriceCents };
    merged.set(guest.productId, { ...line, quantity });
    changes.set(guest.productId, { productId: guest.productId, lineId: existing ? existing.lineId : null, quantity, addedPriceCents: line.addedPriceCents });
    room -= fits;
    moved += fits;
  }
  return { changes: [...changes.values()], moved, dropped: countItems(guestLines) - moved };
}

/**
 * Prices the lines from the catalogue, in integer cents. Lines whose product left the catalogue are skipped. A line
 * whose price has changed since it was added says what it was, so the shopper can be told.
 */
export function priceLines(lines: readonly StoredLine[], products: ReadonlyMap<string, Product>): { items: BasketLineView[]; count: number; subtotalCents: number } {
  const items = lines.flatMap((line): BasketLineView[] => {
    const product = products.get(line.productId);
    if (!product) return [];
    const priced: BasketLineView = { itemId: line.lineId, product, quantity: line.quantity, lineCents: product.priceCents * line.quantity };
    return [line.addedPriceCents === product.priceCents ? priced : { ...priced, addedPriceCents: line.addedPriceCents }];
  });
  return { items, count: countItems(lines.filter((line) => products.has(line.productId))), subtotalCents: sumCents(items.map((line) => line.lineCents)) };
}
