// What an order can still return, line by line, and what a return's lines come to by the refund function: the rules the
// shopper's form and the operator's decisions share.

import { sql } from "kysely";
import type { DB, Writer } from "#server/db/client";
import { chargedOrder, quoteRefund, type RefundQuote } from "#server/pricing/refund";
import type { PriceBreakdown } from "#shared/pricing";
import { readOrderItem, type OrderItem, type StoredOrderItem } from "#shared/orders";

/** The statuses in which a return still holds its units: asked for and not turned down or called off. */
export const HOLDING_STATUSES = ["requested", "approved", "received", "refunded"] as const;

/** An order as returns read it. */
export interface ReturnableOrder {
  id: string;
  number: string;
  items: OrderItem[];
  pricing: PriceBreakdown | null;
  amountCents: number;
  refundedCents: number;
}

export function toReturnableOrder(row: {
  id: string;
  number: string;
  items: StoredOrderItem[];
  pricing: PriceBreakdown | null;
  amount_cents: number;
  refunded_cents: number;
}): ReturnableOrder {
  return {
    id: row.id,
    number: row.number,
    items: row.items.map(readOrderItem),
    pricing: row.pricing,
    amountCents: row.amount_cents,
    refundedCents: row.refunded_cents,
  };
}

/**
 * Each line's units that may still be returned: sold, less the units of returns that hold them (asked for, approved,
 * received or refunded), less units refunded outside any return (the console's own refunds).
 */
export async function returnableQuantities(executor: DB | Writer, order: ReturnableOrder): Promise<number[]> {
  const [held, refundedElsewhere] = await Promise.all([
    executor
      .selectFrom("return_lines")
      .innerJoin("returns", "returns.id", "return_lines.return_id")
      .select(["return_lines.line_index", sql<number>`sum(return_lines.quantity)::int`.as("quantity")])
      .where("returns.order_id", "=", order.id)
      .where("returns.status", "in", HOLDING_STATUSES)
      .groupBy("return_lines.line_index")
      .execute(),
    executor
      .selectFrom("order_refund_lines")
      .select(["line_index", sql<number>`sum(quantity)::int`.as("quantity")])
      .where("order_id", "=", order.id)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("returns")
              .select("returns.id")
              .whereRef("returns.refund_id", "=", "order_refund_lines.refund_id"),
          ),
        ),
      )
      .groupBy("line_index")
      .execute(),
  ]);
  return unitsLeftToReturn(order.items, held, refundedElsewhere);
}

/** Each line's units sold, less those held by returns and those refunded outside any return (rows by line index). */
export function unitsLeftToReturn(
  items: readonly Pick<OrderItem, "quantity">[],
  held: readonly { line_index: number; quantity: number }[],
  refundedElsewhere: readonly { line_index: number; quantity: number }[],
): number[] {
  const taken = (rows: readonly { line_index: number; quantity: number }[], index: number) =>
    rows.filter((row) => row.line_index === index).reduce((sum, row) => sum + row.quantity, 0);
  return items.map((item, index) => Math.max(0, item.quantity - taken(held, index) - taken(refundedElsewhere, index)));
}

/** What earlier refunds of the order gave back (what the refund function needs to know). */
export async function earlierRefunds(executor: DB | Writer, order: ReturnableOrder) {
  const [lines, shipping] = await Promise.all([
    executor
      .selectFrom("order_refund_lines")
      .select(["line_index", sql<number>`sum(quantity)::int`.as("quantity")])
      .where("order_id", "=", order.id)
      .groupBy("line_index")
      .execute(),
    executor
      .selectFrom("order_refunds")
      .select(sql<boolean>`coalesce(bool_or(shipping_cents > 0), false)`.as("refunded"))
      .where("order_id", "=", order.id)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    refundedCents: order.refundedCents,
    quantities: order.items.map((_, index) => lines.find((row) => row.line_index === index)?.quantity ?? 0),
    shippingRefunded: shipping.refunded,
  };
}

/**
 * What a return refunds, by the refund function: its units to refund (each line's units, for lines resolved by a
 * refund), its shipping when included, less the return fee.
 */
export function quoteReturn(
  order: ReturnableOrder,
  earlier: Awaited<ReturnType<typeof earlierRefunds>>,
  request: { lines: { index: number; quantity: number }[]; includeShipping: boolean; returnFeeCents: number },
): RefundQuote {
  return quoteRefund(chargedOrder(order.items, order.pricing, order.amountCents), earlier, {
    quantities: order.items.map((_, index) =>
      request.lines.filter((line) => line.index === index).reduce((sum, line) => sum + line.quantity, 0),
    ),
    includeShipping: request.includeShipping,
    returnFeeCents: request.returnFeeCents,
  });
}

/** A return's line for its figure: units, and for a replacement the price of one of the variant sent instead. */
export interface FiguredLine {
  index: number;
  quantity: number;
  resolution: "refund" | "replace";
  replacementPriceCents?: number;
}

export interface ReturnFigure {
  /** What the refund-resolved lines (and shipping, when included) give back, the fee taken off them first. */
  refundCents: number;
  /** What replacements give back: each replaced unit's worth less the price of its replacement, after the fee's rest. */
  differenceCents: number;
  /** Both: the "Refund: $x" a shopper and an operator read. */
  totalCents: number;
  feeCents: number;
  /** What each line is worth by the refund function (index → cents). */
  lineCents: Map<number, number>;
}

/**
 * A return's figure, by the refund function: every line's units are worth what the refund function says (their share
 * of what was paid, tax included); a refunded line gives that back, a replaced line gives back what it was worth above
 * its replacement's price. The shop's return fee is kept back once, from the refund first, then from the difference;
 * nothing gives back more than is left of the payment.
 */
export function figureReturn(
  order: ReturnableOrder,
  earlier: Awaited<ReturnType<typeof earlierRefunds>>,
  request: { lines: FiguredLine[]; includeShipping: boolean; returnFeeCents: number },
): ReturnFigure {
  const quote = quoteReturn(order, earlier, {
    lines: request.lines,
    includeShipping: request.includeShipping,
    returnFeeCents: 0,
  });
  const lineCents = new Map(quote.lines.map((line) => [line.index, line.amountCents]));
  let refund = quote.shippingCents;
  let difference = 0;
  for (const line of request.lines) {
    const worth = lineCents.get(line.index) ?? 0;
    if (line.resolution === "refund") refund += worth;
    else difference += Math.max(0, worth - (line.replacementPriceCents ?? 0) * line.quantity);
  }
  const feeCents = Math.min(refund + difference, Math.max(0, request.returnFeeCents));
  const fromRefund = Math.min(feeCents, refund);
  const refundCents = Math.min(refund - fromRefund, quote.leftCents);
  const differenceCents = Math.min(difference - (feeCents - fromRefund), quote.leftCents - refundCents);
  return { refundCents, differenceCents, totalCents: refundCents + differenceCents, feeCents, lineCents };
}
