/**
 * What an order costs, as the pricing function (server/pricing/) works it out: the wire shape every page, the
 * payment, the order record, the e-mail and the console read. Every figure is integer cents.
 */

import type { PromotionKindName } from "./promotions";
/** A tax rate's percentage is kept in thousandths of a percent: 7.25 % is 7250, so rates to 3 decimals stay exact. */
export const RATE_UNITS_PER_PERCENT = 1000;

/** The one rule for a line's amount, in a module of its own so that the basket on every page need not load the rest. */
export { lineAmountCents } from "./line-amount";

/** A delivery option that serves the address, as the shopper chooses among them. */
export interface DeliveryOption {
  methodId: string;
  name: string;
  estimate: string;
  /** What it costs for this basket: after "Free over", weight tiers and a free-delivery code; 0 shows as "FREE". */
  priceCents: number;
}

export interface PricedLine {
  key: string;
  title: string;
  unitPriceCents: number;
  quantity: number;
  /** unitPriceCents x quantity. */
  amountCents: number;
  /** This line's share of the discount. */
  discountCents: number;
  taxCents: number;
}

export interface AppliedTax {
  rateId: string;
  country: string;
  state: string | null;
  /** Thousandths of a percent (RATE_UNITS_PER_PERCENT). */
  rate: number;
  taxesShipping: boolean;
  /** The lines' tax plus the shipping's, each rounded on its own. */
  amountCents: number;
  shippingTaxCents: number;
}

export interface AppliedPromotion {
  code: string;
  kind: PromotionKindName;
}

export interface PriceBreakdown {
  itemsCents: number;
  discountCents: number;
  /** 0 before an address is known and when no zone serves it. */
  shippingCents: number;
  /** Items - discount + shipping. */
  totalBeforeTaxCents: number;
  taxCents: number;
  totalCents: number;
  lines: PricedLine[];
  /** The chosen delivery option, or null (no address yet, or nobody delivers there). */
  shipping: { methodId: string; name: string; estimate: string; priceCents: number; isFreeDelivery: boolean } | null;
  /** The options that serve the address, cheapest first. */
  deliveryOptions: DeliveryOption[];
  /** The address is known and no zone serves it: nothing can be paid. */
  isUndeliverable: boolean;
  taxes: AppliedTax[];
  promotion: AppliedPromotion | null;
  /**
   * The gift card lines with their tax: the part of the total a gift card may not pay for (gift cards do not buy gift
   * cards). Absent on breakdowns stored before gift cards were sold, which had none.
   */
  giftCardsCents?: number;
  /**
   * Store credit and gift cards paying part or all of the total, in the order they apply (server/pricing/
   * apply-balances.ts). Absent on breakdowns from before balances, which none paid.
   */
  balances?: AppliedBalance[];
  /** What is left for the card once the balances are taken: the total when none apply. */
  dueCents?: number;
}

/** A balance paying for an order: whose account, what it is called on the totals, how much of the total it pays. */
export interface AppliedBalance {
  accountId: string;
  kind: "store_credit" | "gift_card";
  /** A gift card's last four characters (its code is never shown); null for store credit. */
  lastFour: string | null;
  amountCents: number;
}

/** "Store credit", "Gift card ending 7XQ2": how a balance is named on the totals, the order and the e-mail. */
export function balanceLabel(balance: Pick<AppliedBalance, "kind" | "lastFour">): string {
  return balance.kind === "gift_card" ? `Gift card ending ${balance.lastFour ?? ""}` : "Store credit";
}

/** What the card pays: the total less the balances applied. */
export function amountDue(pricing: Pick<PriceBreakdown, "totalCents" | "dueCents">): number {
  return pricing.dueCents ?? pricing.totalCents;
}

/** The balances' lines under the order total ("Store credit: -$20.00"), in the order they were applied. */
export function balanceLines(
  pricing: PriceBreakdown,
  money: (cents: number) => string,
): { label: string; value: string }[] {
  return (pricing.balances ?? []).map((balance) => ({
    label: balanceLabel(balance),
    value: `-${money(balance.amountCents)}`,
  }));
}

/** "7.25%" from thousandths of a percent, without trailing zeros. */
export function formatRate(rate: number): string {
  const whole = Math.trunc(rate / RATE_UNITS_PER_PERCENT);
  const fraction = String(rate % RATE_UNITS_PER_PERCENT)
    .padStart(3, "0")
    .replace(/0+$/, "");
  return `${whole}${fraction ? `.${fraction}` : ""}%`;
}

/** "Sales tax (CA 7.25%)": how a rate is named on the totals, the order and the e-mail. */
export function taxLabel(tax: Pick<AppliedTax, "country" | "state" | "rate">): string {
  return `Tax (${tax.state ? `${tax.country}-${tax.state}` : tax.country} ${formatRate(tax.rate)})`;
}

/** The sentence for an address no zone serves. */
export function noDeliveryMessage(countryName: string): string {
  return `We don't deliver to ${countryName} yet`;
}

/**
 * A recorded order's breakdown as lines of text, in the order every page and e-mail shows them (the order total
 * last, left to the caller): "Items", "Shipping & handling (name)", "Promotion applied", "Total before tax", one
 * line per tax rate applied (or "Tax" at $0.00 when none was).
 */
export function breakdownLines(
  pricing: PriceBreakdown,
  money: (cents: number) => string,
): { label: string; value: string }[] {
  const lines = [{ label: "Items", value: money(pricing.itemsCents) }];
  if (pricing.shipping) {
    lines.push({
      label: `Shipping & handling (${pricing.shipping.name})`,
      value: pricing.shippingCents === 0 ? "FREE" : money(pricing.shippingCents),
    });
  }
  if (pricing.promotion)
    lines.push({ label: "Promotion applied", value: `${pricing.promotion.code} -${money(pricing.discountCents)}` });
  lines.push({ label: "Total before tax", value: money(pricing.totalBeforeTaxCents) });
  if (pricing.taxes.length === 0) lines.push({ label: "Tax", value: money(0) });
  for (const tax of pricing.taxes) lines.push({ label: taxLabel(tax), value: money(tax.amountCents) });
  return lines;
}
