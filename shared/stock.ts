// Types, constants and plain functions only: this module reaches the browser bundle.

/** "Only N left in stock - order soon." is said from this many down to 1. */
export const LOW_STOCK_THRESHOLD = 5;

/** A variant's stock as a shopper's page needs it: `available` is null when the variant does not track stock. */
export interface VariantStock {
  tracksStock: boolean;
  continueSelling: boolean;
  /** On hand minus live reservations (may be below zero); null when not tracked. */
  available: number | null;
}

export type Availability =
  { kind: "in-stock" } | { kind: "low"; left: number } | { kind: "out-of-stock" } | { kind: "back-order" };

/** What a shopper is told about a variant's stock. */
export function availabilityOf(stock: VariantStock): Availability {
  if (!stock.tracksStock || stock.available === null) return { kind: "in-stock" };
  if (stock.available <= 0) return stock.continueSelling ? { kind: "back-order" } : { kind: "out-of-stock" };
  if (stock.available <= LOW_STOCK_THRESHOLD) return { kind: "low", left: stock.available };
  return { kind: "in-stock" };
}

/** The sentence, exactly as shoppers read it. */
export function availabilitySentence(availability: Availability): string {
  switch (availability.kind) {
    case "in-stock":
      return "In stock";
    case "low":
      return `Only ${availability.left} left in stock - order soon.`;
    case "out-of-stock":
      return "Out of stock";
    case "back-order":
      return "Available to back-order";
  }
}

/** Whether a shopper may add (and pay for) a variant: not when it is out of stock and back-orders are off. */
export function canBeSold(stock: VariantStock): boolean {
  return availabilityOf(stock).kind !== "out-of-stock";
}

/** How many a shopper may have of a variant: unlimited (null) unless tracked without back-orders. */
export function sellableQuantity(stock: VariantStock): number | null {
  if (!stock.tracksStock || stock.continueSelling || stock.available === null) return null;
  return Math.max(0, stock.available);
}

/** What a guest page says about a variant, as one comparable word: a change of it moves the catalogue's version. */
export function availabilityWord(stock: VariantStock): string {
  const availability = availabilityOf(stock);
  return availability.kind === "low" ? `low:${availability.left}` : availability.kind;
}

export const OUT_OF_STOCK_MESSAGE = "This item is out of stock.";
export const OUT_OF_STOCK_LINE_MESSAGE = "Out of stock: remove it to continue";

export function onlyLeftInStockMessage(left: number): string {
  return `Only ${left} left in stock`;
}

/** 409 from POST /payments/create: "Only 1 left of Classic Tee (M, Black)". */
export function onlyLeftOfMessage(left: number, title: string, optionValues: readonly string[]): string {
  return `Only ${Math.max(0, left)} left of ${title}${optionValues.length > 0 ? ` (${optionValues.join(", ")})` : ""}`;
}
