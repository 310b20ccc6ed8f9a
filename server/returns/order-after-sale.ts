// What happened to an order after it was paid, read in one statement for its page: its returns with their lines, its
// withdrawals, and units refunded outside any return.

import { sql } from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { DB } from "#server/db/client";
import type { WithdrawnLine } from "#server/db/schema";
import type { OrderDetail, OrderItem } from "#shared/orders";
import type { ReturnKind, ReturnResolution, ReturnStatus } from "#shared/returns";
import { HOLDING_STATUSES, unitsLeftToReturn } from "./return-lines";

/**
 * What happened to an order after it was paid, as its own page shows it: its returns with their lines (newest first),
 * its withdrawals (oldest first), and units refunded outside any return. Read in one statement: the order page's
 * returns section and its withdrawal offer both work from it, so neither waits for another round trip.
 */
export interface OrderAfterSale {
  returns: {
    id: string;
    number: string;
    kind: ReturnKind;
    status: ReturnStatus;
    createdAt: Date;
    refundCents: number | null;
    decisionMessage: string | null;
    /** The $0.00 order it was replaced with, once made: its number and access key (for the guest's signed link). */
    replacementOrder: { number: string; accessKey: string } | null;
    lines: { lineIndex: number; quantity: number; reason: string | null; resolution: ReturnResolution }[];
  }[];
  withdrawals: { id: string; receivedAt: Date; lines: WithdrawnLine[]; isFull: boolean }[];
  refundedElsewhere: { lineIndex: number; quantity: number }[];
}

export async function readOrderAfterSale(db: DB, orderId: string): Promise<OrderAfterSale> {
  const row = await db
    .selectFrom("orders")
    .where("orders.id", "=", orderId)
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom("returns")
          .select(["returns.id", "returns.number", "returns.kind", "returns.status", "returns.created_at"])
          .select(["returns.refund_cents", "returns.decision_message"])
          .select((inner) => [
            inner
              .selectFrom("orders as replacement")
              .select("replacement.number")
              .whereRef("replacement.id", "=", "returns.replacement_order_id")
              .as("replacement_number"),
            inner
              .selectFrom("orders as replacement")
              .select("replacement.access_key")
              .whereRef("replacement.id", "=", "returns.replacement_order_id")
              .as("replacement_access_key"),
          ])
          .select((inner) =>
            jsonArrayFrom(
              inner
                .selectFrom("return_lines")
                .select(["line_index", "quantity", "reason", "resolution"])
                .whereRef("return_lines.return_id", "=", "returns.id")
                .orderBy("line_index"),
            ).as("lines"),
          )
          .whereRef("returns.order_id", "=", "orders.id")
          .orderBy("returns.created_at", "desc"),
      ).as("returns"),
      jsonArrayFrom(
        eb
          .selectFrom("withdrawals")
          .select(["withdrawals.id", "withdrawals.received_at", "withdrawals.lines", "withdrawals.is_full"])
          .whereRef("withdrawals.order_id", "=", "orders.id")
          .orderBy("withdrawals.received_at"),
      ).as("withdrawals"),
      // The console's own refunds: units refunded by no return.
      jsonArrayFrom(
        eb
          .selectFrom("order_refund_lines")
          .select(["order_refund_lines.line_index", sql<number>`sum(order_refund_lines.quantity)::int`.as("quantity")])
          .whereRef("order_refund_lines.order_id", "=", "orders.id")
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom("returns")
                  .select("returns.id")
                  .whereRef("returns.refund_id", "=", "order_refund_lines.refund_id"),
              ),
            ),
          )
          .groupBy("order_refund_lines.line_index"),
      ).as("refunded_elsewhere"),
    ])
    .executeTakeFirst();
  if (!row) return { returns: [], withdrawals: [], refundedElsewhere: [] };
  // Timestamps inside JSON arrive as their text.
  return {
    returns: row.returns.map((made) => ({
      id: made.id,
      number: made.number,
      kind: made.kind,
      status: made.status,
      createdAt: new Date(made.created_at),
      refundCents: made.refund_cents,
      decisionMessage: made.decision_message,
      replacementOrder:
        made.replacement_number && made.replacement_access_key
          ? { number: made.replacement_number, accessKey: made.replacement_access_key }
          : null,
      lines: made.lines.map((line) => ({
        lineIndex: line.line_index,
        quantity: line.quantity,
        reason: line.reason,
        resolution: line.resolution,
      })),
    })),
    withdrawals: row.withdrawals.map((made) => ({
      id: made.id,
      receivedAt: new Date(made.received_at),
      lines: made.lines,
      isFull: made.is_full,
    })),
    refundedElsewhere: row.refunded_elsewhere.map((line) => ({ lineIndex: line.line_index, quantity: line.quantity })),
  };
}

/** Each line's units that may still be returned, by the after-sale read (as returnableQuantities counts them). */
export function returnableAfterSale(items: readonly OrderItem[], afterSale: OrderAfterSale): number[] {
  const held: { line_index: number; quantity: number }[] = [];
  for (const made of afterSale.returns) {
    if (!(HOLDING_STATUSES as readonly string[]).includes(made.status)) continue;
    for (const line of made.lines) held.push({ line_index: line.lineIndex, quantity: line.quantity });
  }
  const refunded = afterSale.refundedElsewhere.map((line) => ({ line_index: line.lineIndex, quantity: line.quantity }));
  return unitsLeftToReturn(items, held, refunded);
}

/** When the order was first marked shipped, by its history (oldest first): the return and withdrawal periods run from it. */
export function firstShippedAt(order: Pick<OrderDetail, "history">): Date | null {
  const shipped = order.history.find((entry) => entry.status === "shipped");
  return shipped ? new Date(shipped.at) : null;
}
