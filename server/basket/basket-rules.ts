// The basket's rules, pure: one line per variant, 1 to 10 of each, 100 items in all, never more than is available;
// merging a guest's basket into an account's.

import { BASKET_ITEM_LIMIT, BASKET_LINE_LIMIT, type BasketLineView } from "#shared/basket";
import { sumCents } from "#shared/money";
import { lineAmountCents } from "#shared/pricing";
import { canBeSold, onlyLeftInStockMessage, OUT_OF_STOCK_LINE_MESSAGE, sellableQuantity } from "#shared/stock";
import type { GiftCardLine } from "#shared/gift-cards";
import type { VariantForSale } from "#server/catalogue/catalogue-service";

/** One stored line: its own id (the order lines were first added in), the variant, how many, and the price when added. */
export interface StoredLine {
  lineId: string;
  productId: string;
  variantId: string;
  quantity: number;
  addedPriceCents: number;
  /** A gift card line's recipient, message and amount; absent (or null) on other lines. */
  giftCard?: GiftCardLine | null;
}

/**
 * The basket's rules as plain functions over the stored lines; the service runs them inside a transaction that
 * holds the basket's row lock, then writes what they decide.
 */

/** The number of items in the basket: the sum of its quantities. */
export function countItems(lines: readonly StoredLine[]): number {
  return lines.reduce((sum, line) => sum + line.quantity, 0);
}

export function findLine(lines: readonly StoredLine[], variantId: string): StoredLine | null {
  return lines.find((line) => line.variantId === variantId) ?? null;
}

/**
 * Whether the product's line may hold `quantity`: null when it may, else why not. The line limit is checked first,
 * so a shopper at both limits hears about the one a smaller number would not fix.
 */
export function refuseQuantity(
  lines: readonly StoredLine[],
  variantId: string,
  quantity: number,
): "BASKET_LINE_FULL" | "BASKET_FULL" | null {
  if (quantity > BASKET_LINE_LIMIT) return "BASKET_LINE_FULL";
  const others = countItems(lines.filter((line) => line.variantId !== variantId));
  return others + quantity > BASKET_ITEM_LIMIT ? "BASKET_FULL" : null;
}

/** A variant paid for, and how many of it (lines paid before variants name their product: its default variant's id). */
export interface PaidQuantity {
  productId: string;
  variantId?: string;
  quantity: number;
}

/**
 * After an order: each line's quantity once the paid quantities are taken out (0: the line goes). Items beyond what
 * was paid for (added after the payment was priced) stay; a paid product no longer in the basket changes nothing.
 */
export function subtractPaid(
  lines: readonly StoredLine[],
  paid: readonly PaidQuantity[],
): { line: StoredLine; quantity: number }[] {
  const paidByVariant = new Map<string, number>();
  for (const item of paid) {
    const variantId = item.variantId ?? item.productId;
    paidByVariant.set(variantId, (paidByVariant.get(variantId) ?? 0) + item.quantity);
  }
  return lines.flatMap((line) => {
    const paidQuantity = paidByVariant.get(line.variantId);
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
): {
  changes: {
    productId: string;
    variantId: string;
    lineId: string | null;
    quantity: number;
    addedPriceCents: number;
    giftCard?: GiftCardLine | null;
  }[];
  moved: number;
  dropped: number;
} {
  const merged = new Map(accountLines.map((line) => [line.variantId, { ...line }]));
  let room = BASKET_ITEM_LIMIT - countItems(accountLines);
  const changes = new Map<
    string,
    {
      productId: string;
      variantId: string;
      lineId: string | null;
      quantity: number;
      addedPriceCents: number;
      giftCard?: GiftCardLine | null;
    }
  >();
  let moved = 0;
  for (const guest of guestLines) {
    const existing = merged.get(guest.variantId);
    const fits = Math.min(guest.quantity, BASKET_LINE_LIMIT - (existing?.quantity ?? 0), room);
    if (fits <= 0) continue;
    const quantity = (existing?.quantity ?? 0) + fits;
    const line = existing ?? {
      lineId: "",
      productId: guest.productId,
      variantId: guest.variantId,
      quantity: 0,
      addedPriceCents: guest.addedPriceCents,
    };
    merged.set(guest.variantId, { ...line, quantity });
    changes.set(guest.variantId, {
      productId: guest.productId,
      variantId: guest.variantId,
      lineId: existing ? existing.lineId : null,
      quantity,
      addedPriceCents: line.addedPriceCents,
      // A guest's gift card keeps who it is for; on a line the account already had, the account's stays.
      giftCard: existing ? existing.giftCard : guest.giftCard,
    });
    room -= fits;
    moved += fits;
  }
  return { changes: [...changes.values()], moved, dropped: countItems(guestLines) - moved };
}

/**
 * Prices the lines at their variants' prices, in integer cents. Lines whose variant (or product) left the catalogue
 * are skipped. A line whose price has changed since it was added says what it was, so the shopper can be told. A
 * line whose variant is out of stock says so, and one holding more than is available says how many are left.
 */
export function priceLines(
  lines: readonly StoredLine[],
  variants: ReadonlyMap<string, VariantForSale>,
): { items: BasketLineView[]; count: number; subtotalCents: number } {
  const items = lines.flatMap((line): BasketLineView[] => {
    const found = variants.get(line.variantId);
    if (!found) return [];
    const { product, variant, optionNames } = found;
    // "Any amount": the line's own amount is its price.
    const priceCents = line.giftCard?.amountCents ?? variant.priceCents;
    const image = variant.image ?? product.image;
    const priced: BasketLineView = {
      itemId: line.lineId,
      product: { id: product.id, title: product.title, priceCents, rating: product.rating, image },
      variant: {
        id: variant.id,
        options: variant.optionValues.map((value, index) => ({ name: optionNames[index] ?? "", value })),
        sku: variant.sku,
        priceCents,
        weightGrams: variant.weightGrams,
        chargeTax: variant.chargeTax,
      },
      stock: variant.stock,
      quantity: line.quantity,
      lineCents: lineAmountCents(priceCents, line.quantity),
      ...stockNotice(line.quantity, found),
      ...(found.giftCard ? { giftCard: line.giftCard ?? null } : {}),
    };
    return [line.addedPriceCents === priceCents ? priced : { ...priced, addedPriceCents: line.addedPriceCents }];
  });
  return {
    items,
    count: countItems(lines.filter((line) => variants.has(line.variantId))),
    subtotalCents: sumCents(items.map((line) => line.lineCents)),
  };
}

/** What a line says of its variant's stock: out of stock (it must go before paying), or fewer left than it holds. */
function stockNotice(
  quantity: number,
  { variant }: VariantForSale,
): Pick<BasketLineView, "stockMessage" | "isOutOfStock"> {
  if (!canBeSold(variant.stock)) return { stockMessage: OUT_OF_STOCK_LINE_MESSAGE, isOutOfStock: true };
  const sellable = sellableQuantity(variant.stock);
  return sellable !== null && quantity > sellable ? { stockMessage: onlyLeftInStockMessage(sellable) } : {};
}
