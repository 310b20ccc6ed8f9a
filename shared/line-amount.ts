// The one place a price is multiplied by a quantity: what a line comes to (a quality test refuses any other).

/**
 * What a line of `quantity` at `unitPriceCents` each comes to: the one place a price is multiplied by a quantity (the
 * pricing function prices every line with it; a basket's optimistic mirror and orders stored without a breakdown
 * read it too). A quality test (server/quality/money-rule.test.ts) refuses the multiplication anywhere else. Apart
 * from shared/pricing.ts (which re-exports it) so that the basket, on every page, does not carry the price rules.
 */
export function lineAmountCents(unitPriceCents: number, quantity: number): number {
  return unitPriceCents * quantity;
}
