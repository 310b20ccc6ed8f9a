/**
 * The refund function, beside the pricing function: what giving back some of an order's units (and its shipping)
 * refunds, in integer cents, from what the order was charged. Pure (no database, no clock), so the console's form,
 * its confirmation, the recorded refund and the tests get the same figure for the same input.
 *
 * A line is worth what was paid for it: its amount less its share of the discount, plus its tax. Each unit's part of
 * that is the difference of two cumulative shares (`worth x units / quantity`, rounded down), so however a line is
 * given back, one unit at a time or all at once, its units add up to exactly what the line was paid. Shipping (with its
 * tax) is given back whole, once. A refund of every unit with its shipping is therefore exactly the order's total.
 */

import { lineAmountCents, type PriceBreakdown } from "../../shared/pricing.ts";

/** A line as the order was charged for it. */
export interface ChargedLine {
  quantity: number;
  /** Price x quantity, before the discount. */
  amountCents: number;
  discountCents: number;
  taxCents: number;
}

export interface ChargedOrder {
  lines: ChargedLine[];
  /** Shipping with its tax, as charged. */
  shippingCents: number;
  /** What the payment was for. */
  totalCents: number;
}

/** What earlier refunds of the order gave back. */
export interface EarlierRefunds {
  /** All of it, refunds by amount alone included. */
  refundedCents: number;
  /** Units given back so far, per line (by the lines' index). */
  quantities: number[];
  /** Whether shipping has been given back. */
  shippingRefunded: boolean;
}

export interface RefundRequest {
  /** Units to give back, per line (by the lines' index); a line left out gives back none. */
  quantities: number[];
  includeShipping: boolean;
  /** Kept back by the shop (a return fee); 0 when none applies. */
  returnFeeCents: number;
}

export interface RefundQuote {
  lines: { index: number; quantity: number; amountCents: number }[];
  /** Shipping with its tax, when included and not yet given back; else 0. */
  shippingCents: number;
  /** The fee kept back, as far as there was anything to keep it from. */
  returnFeeCents: number;
  /** What to refund: the lines and shipping, less the fee, never more than is left of the payment. */
  totalCents: number;
  /** What is left of the payment before this refund: the most any refund may give back. */
  leftCents: number;
}

/** A line's worth: what was paid for it, tax included, after its share of the discount. */
function worthOf(line: ChargedLine): number {
  return line.amountCents - line.discountCents + line.taxCents;
}

/** The part of a line's worth that its first `units` units carry (rounded down; all units carry all of it). */
function cumulativeShare(line: ChargedLine, units: number): number {
  if (line.quantity <= 0) return 0;
  return Math.floor((worthOf(line) * units) / line.quantity);
}

/**
 * What a request refunds. Quantities beyond what is left of a line (sold less given back) are cut to it; negative or
 * fractional quantities count as none. The callers refuse such requests with their own sentences first.
 */
export function quoteRefund(order: ChargedOrder, earlier: EarlierRefunds, request: RefundRequest): RefundQuote {
  const lines: RefundQuote["lines"] = [];
  order.lines.forEach((line, index) => {
    const before = Math.max(0, Math.min(line.quantity, earlier.quantities[index] ?? 0));
    const asked = request.quantities[index] ?? 0;
    const quantity = Number.isSafeInteger(asked) ? Math.max(0, Math.min(asked, line.quantity - before)) : 0;
    if (quantity === 0) return;
    lines.push({
      index,
      quantity,
      amountCents: cumulativeShare(line, before + quantity) - cumulativeShare(line, before),
    });
  });
  const shippingCents = request.includeShipping && !earlier.shippingRefunded ? order.shippingCents : 0;
  const gross = lines.reduce((sum, line) => sum + line.amountCents, 0) + shippingCents;
  const returnFeeCents = Math.min(gross, Math.max(0, request.returnFeeCents));
  const leftCents = Math.max(0, order.totalCents - earlier.refundedCents);
  return {
    lines,
    shippingCents,
    returnFeeCents,
    totalCents: Math.min(gross - returnFeeCents, leftCents),
    leftCents,
  };
}

/**
 * An order's lines and shipping as charged, from the breakdown stored with it; orders from before the breakdown was
 * kept priced their lines at price x quantity, with no discount, shipping or tax.
 */
export function chargedOrder(
  items: readonly { priceCents: number; quantity: number }[],
  pricing: PriceBreakdown | null,
  totalCents: number,
): ChargedOrder {
  if (pricing && pricing.lines.length === items.length) {
    const shippingTax = pricing.taxes.reduce((sum, tax) => sum + tax.shippingTaxCents, 0);
    return {
      lines: pricing.lines.map((line) => ({
        quantity: line.quantity,
        amountCents: line.amountCents,
        discountCents: line.discountCents,
        taxCents: line.taxCents,
      })),
      shippingCents: pricing.shippingCents + shippingTax,
      totalCents,
    };
  }
  return {
    lines: items.map((item) => ({
      quantity: item.quantity,
      amountCents: lineAmountCents(item.priceCents, item.quantity),
      discountCents: 0,
      taxCents: 0,
    })),
    shippingCents: 0,
    totalCents,
  };
}

/** A balance that paid part of an order, and how much of that is still to be given back to it. */
export interface BalancePaid {
  accountId: string;
  /** What it paid less what earlier refunds gave back to it. */
  leftCents: number;
}

/**
 * Where a refund's money goes when balances (store credit, gift cards) paid part of the order: back to the balances
 * first, in the order they were applied, each at most what it paid and has not had back; the rest to the card.
 */
export function splitRefund(
  amountCents: number,
  paidByBalances: readonly BalancePaid[],
): { balances: { accountId: string; amountCents: number }[]; cardCents: number } {
  let left = Math.max(0, amountCents);
  const balances: { accountId: string; amountCents: number }[] = [];
  for (const paid of paidByBalances) {
    const back = Math.min(left, Math.max(0, paid.leftCents));
    if (back <= 0) continue;
    balances.push({ accountId: paid.accountId, amountCents: back });
    left -= back;
  }
  return { balances, cardCents: left };
}
