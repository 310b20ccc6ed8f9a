// EU withdrawals: whether an order may still withdraw, and one withdrawal per form with its acknowledgement e-mail and
// its return, in one transaction.

import type { DB, Writer } from "#server/db/client";
import type { WithdrawnLine } from "#server/db/schema";
import type { EmailOutbox } from "#server/email/email-outbox";
import { withdrawalReceivedEmail } from "#server/email/templates/withdrawal-emails";
import { AppError } from "#shared/errors";
import { formatShopTime } from "#shared/dates";
import { describeItemOptions, readOrderItem, type OrderDetail } from "#shared/orders";
import { firstShippedAt, returnableAfterSale, type OrderAfterSale } from "#server/returns/order-after-sale";
import { returnableQuantities, toReturnableOrder } from "#server/returns/return-lines";
import { canWithdraw, withdrawalPeriodEnd } from "./withdrawal-period";

/** DELIVERY_DAYS' default: days an order takes to arrive after it is marked shipped. */
export const DEFAULT_DELIVERY_DAYS = 7;

/** What a withdrawal asks of the returns service, in the withdrawal's transaction: a return for those units. */
export interface WithdrawalReturnRequest {
  orderId: string;
  /** Units by the order's line index. */
  lines: { index: number; quantity: number }[];
  /** Every unit of the order is now withdrawn from: its refund gives the original delivery charge back too. */
  includeShipping: boolean;
  withdrawalId: string;
}

export interface WithdrawalServiceOptions {
  email: Pick<EmailOutbox, "enqueueOrderEmail">;
  /** The shop's time zone, read before a withdrawal's transaction (the acknowledgement states its time in it). */
  timeZone: () => Promise<string>;
  deliveryDays?: number;
  /** Opens the return a withdrawal starts; answers its id. */
  openReturn?: (trx: Writer, request: WithdrawalReturnRequest) => Promise<string | null>;
  now?: () => Date;
}

/** "Withdraw from contract here"'s page: the order's lines still to withdraw from, and who withdraws. */
export interface WithdrawalOffer {
  lines: { index: number; title: string; options: string; quantity: number }[];
  name: string;
  email: string;
  /** ISO 8601; null while the order has not shipped (the period has not started). */
  periodEndsAt: string | null;
}

export interface RecordedWithdrawal {
  id: string;
  receivedAt: Date;
  lines: WithdrawnLine[];
  isFull: boolean;
  /** False when this key's withdrawal was recorded before (a second submission of the same form). */
  isNew: boolean;
}

/**
 * The EU right of withdrawal (server/withdrawals/README): whether an order offers it, and recording one, once per
 * form, with its acknowledgement through the outbox and its return, in one transaction. Callers (the order's pages)
 * have already established that the shopper may see the order: this service is handed its id.
 */
export function createWithdrawalService(db: DB, options: WithdrawalServiceOptions) {
  const deliveryDays = options.deliveryDays ?? DEFAULT_DELIVERY_DAYS;
  const now = options.now ?? (() => new Date());

  /** The order with what decides its withdrawal: its shipping time, and units already withdrawn per line. */
  async function readOrder(executor: DB | Writer, orderId: string, lock: boolean) {
    let query = executor
      .selectFrom("orders")
      .leftJoin("users", "users.id", "orders.user_id")
      .select([
        "orders.id",
        "orders.number",
        "orders.items",
        "orders.pricing",
        "orders.amount_cents",
        "orders.refunded_cents",
        "orders.delivery_address",
        "orders.contact_email",
        "orders.payment_status",
        "orders.fulfilment_status",
        "users.email as account_email",
      ])
      .where("orders.id", "=", orderId);
    if (lock) query = query.forUpdate("orders");
    const order = await query.executeTakeFirst();
    if (!order) return null;
    const [shipped, earlier, returnable] = await Promise.all([
      executor
        .selectFrom("order_status_history")
        .select((eb) => eb.fn.min("created_at").as("at"))
        .where("order_id", "=", orderId)
        .where("status", "=", "shipped")
        .executeTakeFirst(),
      executor.selectFrom("withdrawals").select("lines").where("order_id", "=", orderId).execute(),
      // Units already on their way back (returns, earlier withdrawals' returns) or refunded are not withdrawn twice.
      returnableQuantities(executor, toReturnableOrder(order)),
    ]);
    const items = order.items.map(readOrderItem);
    const left = linesLeftToWithdraw(items, earlier, returnable);
    const shippedAt = shipped?.at ? new Date(shipped.at) : null;
    const facts = {
      country: order.delivery_address?.country ?? null,
      paymentStatus: order.payment_status,
      fulfilmentStatus: order.fulfilment_status,
      shippedAt,
      unitsLeft: left.reduce((sum, units) => sum + units, 0),
    };
    return {
      order,
      items,
      left,
      shippedAt,
      isOpen: canWithdraw(facts, now(), deliveryDays),
      name: order.delivery_address?.name ?? "",
      email: order.contact_email ?? order.account_email ?? "",
    };
  }

  return {
    /** The offer on the order's page, or null when the order has no right of withdrawal now. */
    async offer(orderId: string): Promise<WithdrawalOffer | null> {
      const read = await readOrder(db, orderId, false);
      if (!read?.isOpen) return null;
      return {
        lines: read.items
          .map((item, index) => ({
            index,
            title: item.title,
            options: describeItemOptions(item),
            quantity: read.left[index] ?? 0,
          }))
          .filter((line) => line.quantity > 0),
        name: read.name,
        email: read.email,
        periodEndsAt: withdrawalPeriodEnd(read.shippedAt, deliveryDays)?.toISOString() ?? null,
      };
    },

    /**
     * Records a withdrawal from the lines ticked (each line's units left, or fewer), sends "We received your
     * withdrawal" and opens its return, all in one transaction under the order's row lock. The same key again answers
     * the withdrawal it recorded, whatever else has happened since.
     */
    async withdraw(
      orderId: string,
      request: { idempotencyKey: string; lines: { index: number; quantity: number }[] },
    ): Promise<RecordedWithdrawal> {
      const timeZone = await options.timeZone();
      return db.transaction().execute(async (trx) => {
        const earlier = await findByKey(trx, request.idempotencyKey);
        if (earlier) {
          if (earlier.order_id !== orderId) throw new AppError("BAD_REQUEST", "Reload the page and try again.");
          return { ...toRecorded(earlier), isNew: false };
        }
        const read = await readOrder(trx, orderId, true);
        if (!read) throw new AppError("NOT_FOUND", "There is no such order.");
        // The lock is held: a second submission waiting for it finds the first one's row above.
        const again = await findByKey(trx, request.idempotencyKey);
        if (again) return { ...toRecorded(again), isNew: false };
        if (!read.isOpen)
          throw new AppError("ORDER_TRANSITION_REFUSED", `Order ${read.order.number} can no longer be withdrawn from.`);
        const lines = withdrawnLines(read.items, read.left, request.lines);
        if (lines.length === 0) throw new AppError("BAD_REQUEST", "Tick at least one item to withdraw from.");
        const unitsAfter = read.left.reduce((sum, units) => sum + units, 0) - lines.reduce((s, l) => s + l.quantity, 0);
        const isFull = unitsAfter === 0;
        const row = await trx
          .insertInto("withdrawals")
          .values({
            order_id: orderId,
            idempotency_key: request.idempotencyKey,
            lines: JSON.stringify(lines),
            is_full: isFull,
            name: read.name,
            email: read.email,
          })
          .returning(["id", "received_at"])
          .executeTakeFirstOrThrow();
        // The acknowledgement on a durable medium: once per withdrawal, with what, who and when.
        await options.email.enqueueOrderEmail(trx, {
          orderId,
          kind: "withdrawal-received",
          dedupeKey: `withdrawal-received:${row.id}`,
          render: (order) =>
            withdrawalReceivedEmail({
              shop: order.shop,
              orderUrl: order.orderUrl,
              orderNumber: order.orderNumber,
              lines,
              isFull,
              name: read.name,
              email: read.email,
              receivedAt: row.received_at.toISOString(),
              receivedAtText: formatShopTime(row.received_at, timeZone),
            }),
        });
        const returnId = await options.openReturn?.(trx, {
          orderId,
          lines: lines.map(({ index, quantity }) => ({ index, quantity })),
          includeShipping: isFull,
          withdrawalId: row.id,
        });
        if (returnId)
          await trx.updateTable("withdrawals").set({ return_id: returnId }).where("id", "=", row.id).execute();
        return { id: row.id, receivedAt: row.received_at, lines, isFull, isNew: true };
      });
    },

    /**
     * The order page's side of withdrawal, from the order the page has read and what the returns section read of it
     * (its withdrawals, returns and refunds): whether "Withdraw from contract here" is offered, and what was withdrawn
     * and when, oldest first. Sends nothing to the database.
     */
    forOrderPage(
      order: OrderDetail,
      afterSale: OrderAfterSale,
    ): { isOpen: boolean; withdrawals: RecordedWithdrawal[] } {
      const withdrawals = afterSale.withdrawals.map((made) => ({ ...made, isNew: false }));
      const left = linesLeftToWithdraw(order.items, afterSale.withdrawals, returnableAfterSale(order.items, afterSale));
      const facts = {
        country: order.deliveryAddress?.country ?? null,
        paymentStatus: order.paymentStatus,
        fulfilmentStatus: order.fulfilmentStatus,
        shippedAt: firstShippedAt(order),
        unitsLeft: left.reduce((sum, units) => sum + units, 0),
      };
      return { isOpen: canWithdraw(facts, now(), deliveryDays), withdrawals };
    },

    /** The withdrawals of one order, oldest first (its page says what was withdrawn and when). */
    async listForOrder(orderId: string) {
      const rows = await db
        .selectFrom("withdrawals")
        .selectAll()
        .where("order_id", "=", orderId)
        .orderBy("received_at")
        .execute();
      return rows.map(toRecorded);
    },

    /** The withdrawal that opened a return (the console's page of that return): when, by whom, and how much. */
    async forReturn(returnNumber: string) {
      const row = await db
        .selectFrom("withdrawals")
        .innerJoin("returns", "returns.id", "withdrawals.return_id")
        .select(["withdrawals.received_at", "withdrawals.name", "withdrawals.email", "withdrawals.is_full"])
        .where("returns.number", "=", returnNumber.toUpperCase())
        .executeTakeFirst();
      return row ? { receivedAt: row.received_at, name: row.name, email: row.email, isFull: row.is_full } : null;
    },
  };
}

/** Each line's units still to withdraw from: sold less withdrawn, and no more than may still be returned. */
function linesLeftToWithdraw(
  items: readonly { quantity: number }[],
  withdrawals: readonly { lines: readonly WithdrawnLine[] }[],
  returnable: readonly number[],
): number[] {
  const withdrawn = items.map(() => 0);
  for (const row of withdrawals)
    for (const line of row.lines) withdrawn[line.index] = (withdrawn[line.index] ?? 0) + line.quantity;
  return items.map((item, index) =>
    Math.max(0, Math.min(item.quantity - (withdrawn[index] ?? 0), returnable[index] ?? 0)),
  );
}

async function findByKey(trx: Writer, key: string) {
  return trx.selectFrom("withdrawals").selectAll().where("idempotency_key", "=", key).executeTakeFirst();
}

function toRecorded(row: { id: string; received_at: Date; lines: WithdrawnLine[]; is_full: boolean }) {
  return { id: row.id, receivedAt: row.received_at, lines: row.lines, isFull: row.is_full };
}

/** The lines asked for, each cut to what is left of it; lines not asked for, unknown or of no units are dropped. */
function withdrawnLines(
  items: readonly { title: string; options?: { name: string; value: string }[] }[],
  left: readonly number[],
  asked: readonly { index: number; quantity: number }[],
): WithdrawnLine[] {
  const byIndex = new Map<number, number>();
  for (const line of asked) byIndex.set(line.index, (byIndex.get(line.index) ?? 0) + line.quantity);
  const lines: WithdrawnLine[] = [];
  items.forEach((item, index) => {
    const quantity = Math.min(byIndex.get(index) ?? 0, left[index] ?? 0);
    if (!Number.isSafeInteger(quantity) || quantity <= 0) return;
    lines.push({ index, quantity, title: item.title, options: describeItemOptions(item) });
  });
  return lines;
}

export type WithdrawalService = ReturnType<typeof createWithdrawalService>;
