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
  return order.items.map((item, index) => {
    const taken =
      (held.find((row) => row.line_index === index)?.quantity ?? 0) +
      (refundedElsewhere.find((row) => row.line_index === index)?.quantity ?? 0);
    return Math.max(0, item.quantity - taken);
  });
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
