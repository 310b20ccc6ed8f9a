// The pricing function: lines, address, delivery option, promotion and the shop's zones and rates in, every figure of
// the order in integer cents out; pure, no I/O.

import type { AppliedTax, DeliveryOption, PriceBreakdown, PricedLine } from "../../shared/pricing.ts";
import { lineAmountCents, RATE_UNITS_PER_PERCENT } from "../../shared/pricing.ts";

export interface PricingLineInput {
  key: string;
  title: string;
  unitPriceCents: number;
  quantity: number;
  /** The weight of one, for weight tiers; 0 when unknown. */
  weightGrams?: number;
  /** "Charge tax" of the variant; on by default. */
  taxable?: boolean;
  /** A gift card: no delivery, no promotion's discount, and tax only where a rate says gift cards are taxed. */
  isGiftCard?: boolean;
}

export interface PricingAddress {
  country: string;
  /** A US state's two-letter code; ignored elsewhere. */
  state?: string | null;
}

export interface WeightTier {
  upToGrams: number;
  priceCents: number;
}

export interface ShippingMethodRates {
  id: string;
  name: string;
  estimate: string;
  priceCents: number;
  freeOverCents: number | null;
  weightTiers: WeightTier[];
}

export interface ShippingZoneRates {
  id: string;
  name: string;
  countries: string[];
  /** US states the zone covers; empty means the whole of the United States when it lists US. */
  states: string[];
  methods: ShippingMethodRates[];
}

export interface TaxRateInput {
  id: string;
  country: string;
  state: string | null;
  /** Thousandths of a percent. */
  rate: number;
  taxesShipping: boolean;
  /** Whether the rate applies to gift cards too (a gift card is money kept for later, untaxed unless a rate says so). */
  taxesGiftCards?: boolean;
}

export interface ShopRates {
  zones: ShippingZoneRates[];
  taxRates: TaxRateInput[];
}

export type PromotionInput =
  | { kind: "none" }
  | { kind: "percentage"; code: string; percent: number }
  | { kind: "amount"; code: string; amountCents: number }
  | { kind: "free-delivery"; code: string };

export interface PricingInput {
  lines: PricingLineInput[];
  address: PricingAddress | null;
  /** The shopper's choice; an option that does not serve the address falls back to the cheapest. */
  methodId: string | null;
  promotion: PromotionInput;
  rates: ShopRates;
}

const US = "US";

/**
 * The one pricing function: basket lines + delivery address + chosen delivery option + promotion + the shop's
 * zones and rates -> every figure in integer cents. Pure (no database, no clock, no I/O), so the page, the payment,
 * the order and the tests all get the same answer for the same input.
 *
 * The order of operations is fixed:
 *   items (price x quantity per line)
 *   -> discount (a percentage of the items rounded half away from zero, or an amount capped at the items; shared
 *      across the lines in proportion, remainder cents by largest remainder, so the shares add up exactly)
 *   -> shipping (the method's price: its weight tier if any, 0 at or over "Free over" compared with the items after
 *      the discount, 0 for a free-delivery code)
 *   -> tax (per line on the line's amount after its share of the discount, and on shipping when the rate says so,
 *      each rounded half away from zero)
 *   -> total = items - discount + shipping + tax.
 *
 * Gift card lines are money sold for later: a promotion's discount is worked out on the other lines only (and
 * shared among them), they weigh nothing and count nothing towards "Free over", a basket of gift cards alone needs no
 * delivery, and they are taxed only by a rate that says so (`taxesGiftCards`).
 */
export function priceOrder(input: PricingInput): PriceBreakdown {
  const { lines, address, promotion, rates } = input;
  const amounts = lines.map((line) => lineAmountCents(line.unitPriceCents, line.quantity));
  const itemsCents = sum(amounts);
  // What a promotion may discount and what delivery is for: every line but the gift cards.
  const goodsAmounts = lines.map((line, index) => (line.isGiftCard ? 0 : amounts[index]!));
  const goodsCents = sum(goodsAmounts);
  const needsDelivery = lines.length === 0 || lines.some((line) => !line.isGiftCard);

  const discountCents = discountFor(promotion, goodsCents);
  const shares = shareByLargestRemainder(discountCents, goodsAmounts);
  const afterDiscount = goodsCents - discountCents;

  const zone = address && needsDelivery ? zoneFor(rates.zones, address) : null;
  const weightGrams = sum(lines.map((line) => (line.isGiftCard ? 0 : (line.weightGrams ?? 0)) * line.quantity));
  const isFreeDelivery = promotion.kind === "free-delivery";
  const deliveryOptions: DeliveryOption[] = (zone?.methods ?? [])
    .map((method) => ({
      methodId: method.id,
      name: method.name,
      estimate: method.estimate,
      priceCents: isFreeDelivery ? 0 : methodPrice(method, afterDiscount, weightGrams),
    }))
    // Cheapest first; among equals, the operator's order.
    .map((option, index) => ({ option, index }))
    .sort((a, b) => a.option.priceCents - b.option.priceCents || a.index - b.index)
    .map(({ option }) => option);
  const chosen = deliveryOptions.find((option) => option.methodId === input.methodId) ?? deliveryOptions[0] ?? null;
  const shippingCents = chosen?.priceCents ?? 0;

  const rate = address ? taxRateFor(rates.taxRates, address) : null;
  const pricedLines: PricedLine[] = lines.map((line, index) => {
    const amountCents = amounts[index]!;
    const discount = shares[index]!;
    const taxable = (line.taxable ?? true) && (!line.isGiftCard || rate?.taxesGiftCards === true);
    return {
      key: line.key,
      title: line.title,
      unitPriceCents: line.unitPriceCents,
      quantity: line.quantity,
      amountCents,
      discountCents: discount,
      taxCents: rate && taxable ? percentOf(amountCents - discount, rate.rate) : 0,
    };
  });
  const taxes: AppliedTax[] = [];
  if (rate) {
    const shippingTaxCents = rate.taxesShipping ? percentOf(shippingCents, rate.rate) : 0;
    taxes.push({
      rateId: rate.id,
      country: rate.country,
      state: rate.state,
      rate: rate.rate,
      taxesShipping: rate.taxesShipping,
      amountCents: sum(pricedLines.map((line) => line.taxCents)) + shippingTaxCents,
      shippingTaxCents,
    });
  }
  const taxCents = sum(taxes.map((tax) => tax.amountCents));
  const totalBeforeTaxCents = itemsCents - discountCents + shippingCents;
  const giftCardsCents = sum(
    pricedLines.filter((_, index) => lines[index]!.isGiftCard).map((line) => line.amountCents + line.taxCents),
  );
  return {
    itemsCents,
    discountCents,
    shippingCents,
    totalBeforeTaxCents,
    taxCents,
    totalCents: totalBeforeTaxCents + taxCents,
    lines: pricedLines,
    shipping: chosen ? { ...chosen, isFreeDelivery } : null,
    deliveryOptions,
    isUndeliverable: address !== null && needsDelivery && deliveryOptions.length === 0,
    taxes,
    promotion: promotion.kind === "none" ? null : { code: promotion.code, kind: promotion.kind },
    giftCardsCents,
  };
}

/** The discount on the items: a percentage rounded half away from zero, or an amount capped at the items. */
function discountFor(promotion: PromotionInput, itemsCents: number): number {
  switch (promotion.kind) {
    case "percentage":
      return Math.min(itemsCents, percentOf(itemsCents, Math.round(promotion.percent * RATE_UNITS_PER_PERCENT)));
    case "amount":
      return Math.min(itemsCents, Math.max(0, promotion.amountCents));
    default:
      return 0;
  }
}

/**
 * `total` shared across `weights` in proportion: each gets the whole cents of its exact share, and the cents left
 * over go one each to the largest fractional remainders (the earlier line first among equals). The shares add up
 * to `total` exactly.
 */
export function shareByLargestRemainder(total: number, weights: number[]): number[] {
  const whole = sum(weights);
  if (total === 0 || whole === 0) return weights.map(() => 0);
  const shares = weights.map((weight) => Math.floor((weight * total) / whole));
  // The remainder of each exact share, in units of 1/whole cent (integers: no float comparison).
  const remainders = weights.map((weight, index) => ({ index, remainder: weight * total - shares[index]! * whole }));
  remainders.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  let left = total - sum(shares);
  for (const { index } of remainders) {
    if (left === 0) break;
    shares[index]! += 1;
    left--;
  }
  return shares;
}

/** `amountCents` x `rate` thousandths of a percent, rounded half away from zero, in integers. */
export function percentOf(amountCents: number, rate: number): number {
  const scale = 100 * RATE_UNITS_PER_PERCENT;
  const product = Math.abs(amountCents) * rate;
  const quotient = Math.floor(product / scale);
  const rounded = (product - quotient * scale) * 2 >= scale ? quotient + 1 : quotient;
  return amountCents < 0 ? -rounded : rounded;
}

/**
 * A method's price for this basket: 0 at or over "Free over" (compared with the items after the discount);
 * otherwise the first weight tier that holds the basket's weight, or the method's price when none does.
 */
function methodPrice(method: ShippingMethodRates, itemsAfterDiscountCents: number, weightGrams: number): number {
  if (method.freeOverCents !== null && itemsAfterDiscountCents >= method.freeOverCents) return 0;
  const tier = [...method.weightTiers]
    .sort((a, b) => a.upToGrams - b.upToGrams)
    .find((candidate) => weightGrams <= candidate.upToGrams);
  return tier ? tier.priceCents : method.priceCents;
}

/** The zone serving the address: for the US, one listing its state before one listing the whole country. */
export function zoneFor(zones: ShippingZoneRates[], address: PricingAddress): ShippingZoneRates | null {
  const covering = zones.filter((zone) => zone.countries.includes(address.country));
  if (address.country !== US) return covering[0] ?? null;
  const state = address.state ?? "";
  return (
    covering.find((zone) => zone.states.includes(state)) ?? covering.find((zone) => zone.states.length === 0) ?? null
  );
}

/** The most specific rate for the address: its US state's, else its country's. */
export function taxRateFor(taxRates: TaxRateInput[], address: PricingAddress): TaxRateInput | null {
  const state = address.country === US ? (address.state ?? null) : null;
  return (
    (state ? taxRates.find((rate) => rate.country === address.country && rate.state === state) : undefined) ??
    taxRates.find((rate) => rate.country === address.country && rate.state === null) ??
    null
  );
}

function sum(values: number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
