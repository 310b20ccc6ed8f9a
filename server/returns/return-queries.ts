// The console's reads of returns: the list by status, one return in full, those waiting on the shop too long, and the
// dashboard's returns by reason.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import { describeItemOptions, readOrderItem } from "#shared/orders";
import { RETURN_ATTENTION_DAYS, RETURN_REASONS, type ReturnKind, type ReturnStatus } from "#shared/returns";
import { earlierRefunds, figureReturn, toReturnableOrder } from "./return-lines";
import { variantDescriptions } from "./return-view";

export const ADMIN_RETURNS_PAGE_SIZE = 100;

export interface AdminReturnRow {
  number: string;
  orderNumber: string;
  kind: ReturnKind;
  status: ReturnStatus;
  createdAt: Date;
  units: number;
  refundCents: number | null;
  contactEmail: string | null;
  /** Waiting on the shop (a decision or the parcel) for more than RETURN_ATTENTION_DAYS. */
  needsAttention: boolean;
}

/** Open returns waiting on the shop: asked for and not decided, or approved and not yet received. */
const WAITING: ReturnStatus[] = ["requested", "approved"];

/** The console's reads of returns: the list (Requested first), one return, Needs attention, the dashboard, the CSV. */
export function createReturnQueries(db: DB) {
  const attentionCutoff = sql<Date>`now() - make_interval(days => ${RETURN_ATTENTION_DAYS})`;

  return {
    /** Every return, Requested first, then by status and newest first; a kind narrows it (withdrawals apart). */
    async listReturns(
      filter: { status?: ReturnStatus; kind?: ReturnKind; needsAttention?: boolean } = {},
    ): Promise<AdminReturnRow[]> {
      let query = db
        .selectFrom("returns")
        .innerJoin("orders", "orders.id", "returns.order_id")
        .select([
          "returns.number",
          "orders.number as order_number",
          "returns.kind",
          "returns.status",
          "returns.created_at",
          "returns.refund_cents",
          "orders.contact_email",
          sql<number>`(select coalesce(sum(quantity), 0)::int from return_lines where return_id = returns.id)`.as(
            "units",
          ),
          sql<boolean>`(returns.status in ('requested', 'approved') and coalesce(returns.decided_at, returns.created_at) < ${attentionCutoff})`.as(
            "needs_attention",
          ),
        ])
        .orderBy(
          sql`case returns.status when 'requested' then 0 when 'approved' then 1 when 'received' then 2 else 3 end`,
        )
        .orderBy("returns.created_at", "desc")
        .limit(ADMIN_RETURNS_PAGE_SIZE);
      if (filter.status) query = query.where("returns.status", "=", filter.status);
      if (filter.kind) query = query.where("returns.kind", "=", filter.kind);
      if (filter.needsAttention)
        query = query
          .where("returns.status", "in", WAITING)
          .where(sql<boolean>`coalesce(returns.decided_at, returns.created_at) < ${attentionCutoff}`);
      const rows = await query.execute();
      return rows.map((row) => ({
        number: row.number,
        orderNumber: row.order_number,
        kind: row.kind,
        status: row.status,
        createdAt: row.created_at,
        units: row.units,
        refundCents: row.refund_cents,
        contactEmail: row.contact_email,
        needsAttention: row.needs_attention,
      }));
    },

    /** One return in full: its order's lines, what was asked, received and damaged, and the figure to refund. */
    async getReturn(number: string) {
      const row = await db
        .selectFrom("returns")
        .selectAll("returns")
        .where("returns.number", "=", number.toUpperCase())
        .executeTakeFirst();
      if (!row) return null;
      const orderRow = await db
        .selectFrom("orders")
        .select(["id", "number", "items", "pricing", "amount_cents", "refunded_cents", "contact_email"])
        .where("id", "=", row.order_id)
        .executeTakeFirstOrThrow();
      const order = toReturnableOrder(orderRow);
      const lines = await db
        .selectFrom("return_lines")
        .selectAll()
        .where("return_id", "=", row.id)
        .orderBy("line_index")
        .execute();
      const replacementIds = lines.flatMap((line) =>
        line.replacement_variant_id ? [line.replacement_variant_id] : [],
      );
      const [described, prices, replacement] = await Promise.all([
        variantDescriptions(db, replacementIds),
        replacementIds.length
          ? db.selectFrom("product_variants").select(["id", "price_cents"]).where("id", "in", replacementIds).execute()
          : Promise.resolve([]),
        row.replacement_order_id
          ? db.selectFrom("orders").select("number").where("id", "=", row.replacement_order_id).executeTakeFirst()
          : Promise.resolve(undefined),
      ]);
      const priceOf = (id: string | null) => prices.find((price) => price.id === id)?.price_cents;
      const received = lines.some((line) => line.received_quantity !== null);
      // The figure an operator refunds: of the received units once any are marked, else of what was asked.
      const figure = figureReturn(order, await earlierRefunds(db, order), {
        lines: lines
          .map((line) => ({
            index: line.line_index,
            quantity: received ? (line.received_quantity ?? 0) : line.quantity,
            resolution: line.resolution,
            replacementPriceCents: priceOf(line.replacement_variant_id),
          }))
          .filter((line) => line.quantity > 0),
        includeShipping: row.include_shipping,
        returnFeeCents: row.return_fee_cents,
      });
      return {
        number: row.number,
        kind: row.kind,
        status: row.status,
        orderNumber: order.number,
        contactEmail: orderRow.contact_email,
        createdAt: row.created_at,
        decidedAt: row.decided_at,
        decidedBy: row.decided_by,
        decisionMessage: row.decision_message,
        returnFeeCents: row.return_fee_cents,
        includeShipping: row.include_shipping,
        refundCents: row.refund_cents,
        refundedAt: row.refunded_at,
        replacementOrderNumber: replacement?.number ?? null,
        figure: {
          refundCents: figure.refundCents,
          differenceCents: figure.differenceCents,
          totalCents: figure.totalCents,
          feeCents: figure.feeCents,
        },
        hasRefundLines: lines.some((line) => line.resolution === "refund"),
        hasReplaceLines: lines.some((line) => line.resolution === "replace"),
        lines: lines.map((line) => {
          const item = readOrderItem(orderRow.items[line.line_index]!);
          return {
            index: line.line_index,
            title: item.title,
            options: describeItemOptions(item),
            quantity: line.quantity,
            reason: line.reason,
            resolution: line.resolution,
            replacement: line.replacement_variant_id ? (described.get(line.replacement_variant_id) ?? "") : null,
            receivedQuantity: line.received_quantity,
            damagedQuantity: line.damaged_quantity,
          };
        }),
      };
    },

    /** Returns waiting on the shop (a decision, or the parcel) for more than RETURN_ATTENTION_DAYS, by kind. */
    async countReturnsNeedingAttention(): Promise<{ returns: number; withdrawals: number }> {
      const rows = await db
        .selectFrom("returns")
        .select(["kind", sql<number>`count(*)::int`.as("count")])
        .where("status", "in", WAITING)
        .where(sql<boolean>`coalesce(decided_at, created_at) < ${attentionCutoff}`)
        .groupBy("kind")
        .execute();
      return {
        returns: rows.find((row) => row.kind === "return")?.count ?? 0,
        withdrawals: rows.find((row) => row.kind === "withdrawal")?.count ?? 0,
      };
    },

    /**
     * The dashboard's returns by reason between two instants: units asked to be returned (returns not declined nor
     * cancelled), and what their refunds gave back, per reason (a return's refund shared by its lines' units).
     */
    async returnsByReason(days: { from: string; to: string; timeZone: string }) {
      const start = sql<Date>`(${days.from}::date)::timestamp at time zone ${days.timeZone}`;
      const end = sql<Date>`(${days.to}::date + 1)::timestamp at time zone ${days.timeZone}`;
      const rows = await db
        .selectFrom("return_lines")
        .innerJoin("returns", "returns.id", "return_lines.return_id")
        .select([
          "return_lines.reason",
          sql<number>`count(distinct returns.id)::int`.as("returns"),
          sql<number>`sum(return_lines.quantity)::int`.as("units"),
          sql<number>`coalesce(sum(case when returns.refunded_at is not null then round(coalesce(returns.refund_cents, 0) * return_lines.quantity::numeric / nullif((select sum(quantity) from return_lines own where own.return_id = returns.id), 0)) else 0 end), 0)::int`.as(
            "refund_cents",
          ),
        ])
        .where("returns.created_at", ">=", start)
        .where("returns.created_at", "<", end)
        .where("returns.status", "not in", ["declined", "cancelled"])
        .groupBy("return_lines.reason")
        .execute();
      return [...RETURN_REASONS.map((reason) => reason.code), null].map((code) => {
        const row = rows.find((candidate) => candidate.reason === code);
        return {
          reason: code,
          returns: row?.returns ?? 0,
          units: row?.units ?? 0,
          refundCents: row?.refund_cents ?? 0,
        };
      });
    },

    /** Units returned (received) per order, for the orders CSV: order id → units. */
    async returnedUnits(orderIds: string[]): Promise<Map<string, number>> {
      if (orderIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("return_lines")
        .innerJoin("returns", "returns.id", "return_lines.return_id")
        .select(["returns.order_id", sql<number>`coalesce(sum(return_lines.received_quantity), 0)::int`.as("units")])
        .where("returns.order_id", "in", orderIds)
        .groupBy("returns.order_id")
        .execute();
      return new Map(rows.map((row) => [row.order_id, row.units]));
    },
  };
}
