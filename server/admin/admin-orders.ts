import { sql, type SelectQueryBuilder } from "kysely";
import type { DB, Writer } from "#server/db/client";
import type { Database } from "#server/db/schema";
import { keysetCursor } from "#server/db/keyset-cursor";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { Logger } from "#server/logger";
import type { InventoryService } from "#server/inventory/inventory-service";
import type { OrderService } from "#server/orders/order-service";
import type { PaymentProvider, ProviderRefund } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { ORDER_NUMBER_PATTERN, orderAllows, readOrderItem, type OrderStatus } from "#shared/orders";
import { recordAudit, type Actor } from "./audit-log";
import { orderNeedsAttention, ordersInMode } from "./needs-attention";

export const ADMIN_ORDERS_PAGE_SIZE = 50;

/** Metadata on a refund the console asks for, so whichever path records it (call or webhook) knows who asked. */
const OPERATOR_ID_KEY = "shop_operator_id";
const OPERATOR_EMAIL_KEY = "shop_operator_email";
const CONSOLE_KEY_KEY = "shop_request_key";
/** "Put the items back in stock", carried by the refund so whichever path records it (call or webhook) restocks. */
const RESTOCK_KEY = "shop_restock";
export const ALREADY_REFUNDED = "This order has already been refunded.";

/** Who a refund made outside the console (the processor's dashboard) is recorded as. */
const PROCESSOR_ACTOR: Actor = { id: null, email: "processor" };

export interface AdminOrderRow {
  id: string;
  number: string;
  paidAt: Date;
  status: OrderStatus;
  amountCents: number;
  refundedCents: number;
  contactEmail: string | null;
  isTest: boolean;
  /** Marked Oversold: paid after its stock hold lapsed (one reason an order needs attention). */
  isOversold: boolean;
  /** Marked "Promotion over its limit": paid after its code's hold lapsed, when the last use had gone elsewhere. */
  isPromotionOverLimit: boolean;
}

/** What the console's orders list (and its CSV export) is narrowed to: a status, a search, paid on or between two days (UTC). */
export interface AdminOrderFilter {
  status?: OrderStatus;
  /** Only the orders that need attention (needs-attention.ts). */
  needsAttention?: boolean;
  /** Only live (true) or test (false) orders. */
  livemode?: boolean;
  /** An order number, or an e-mail (whole, any case). */
  search?: string;
  /** YYYY-MM-DD: paid on that day or later, on that day or earlier. */
  paidFrom?: string;
  paidTo?: string;
}

/** The filter as conditions on a query of orders (the list's and the export's: the same orders). */
export function filterOrders<Query extends SelectQueryBuilder<Database, "orders", object>>(
  query: Query,
  filter: AdminOrderFilter,
): Query {
  let filtered = query;
  if (filter.status) filtered = filtered.where("status", "=", filter.status) as Query;
  if (filter.needsAttention) filtered = filtered.where(orderNeedsAttention) as Query;
  if (filter.livemode !== undefined) filtered = filtered.where(ordersInMode(filter.livemode)) as Query;
  const search = filter.search?.trim();
  if (search) {
    if (ORDER_NUMBER_PATTERN.test(search.toUpperCase()))
      filtered = filtered.where("number", "=", search.toUpperCase()) as Query;
    else filtered = filtered.where(sql<string>`lower(contact_email)`, "=", search.toLowerCase()) as Query;
  }
  if (filter.paidFrom)
    filtered = filtered.where(
      "paid_at",
      ">=",
      sql<Date>`${filter.paidFrom}::date::timestamp at time zone 'UTC'`,
    ) as Query;
  if (filter.paidTo)
    filtered = filtered.where(
      "paid_at",
      "<",
      sql<Date>`(${filter.paidTo}::date + 1)::timestamp at time zone 'UTC'`,
    ) as Query;
  return filtered;
}

/** The console's pages of all orders: (paid_at, intent id) of the previous page's last order. */
const ordersCursor = keysetCursor(/^[A-Za-z0-9_]{1,100}$/);

/**
 * The console's side of orders: every shopper's orders, one order in full, and the operator's three actions on it
 * (ship, refund, cancel and refund), each with its e-mail and audit entry in the change's own transaction.
 */
export function createAdminOrders(
  db: DB,
  orders: OrderService,
  provider: PaymentProvider,
  email: EmailOutbox,
  logger: Logger,
  inventory?: InventoryService,
) {
  async function orderByNumber(number: string) {
    const key = number.toUpperCase();
    if (!ORDER_NUMBER_PATTERN.test(key)) return undefined;
    return db.selectFrom("orders").selectAll().where("number", "=", key).executeTakeFirst();
  }

  /**
   * Records a refund the processor made, exactly once per refund id: the row keyed by that id is inserted first,
   * so a second caller (the webhook, the other instance, a repeated form) waits on it and then finds it. The order's
   * refunded amount, status, history, the shopper's e-mail, the audit entry and, when the refund asked for it, the
   * items put back in stock (and any back-in-stock alerts that brings) are written in the same transaction.
   */
  async function recordProcessorRefund(
    refund: ProviderRefund,
    idempotencyKey: string | null = null,
  ): Promise<"recorded" | "already-recorded" | "not-ours"> {
    if (refund.status !== "succeeded" || !refund.paymentIntentId) return "not-ours";
    const orderId = refund.paymentIntentId;
    const operatorEmail = refund.metadata[OPERATOR_EMAIL_KEY];
    const actor: Actor = operatorEmail
      ? { id: refund.metadata[OPERATOR_ID_KEY] || null, email: operatorEmail }
      : PROCESSOR_ACTOR;
    return db.transaction().execute(async (trx) => {
      // The order's row lock first: the refund row's foreign key would otherwise share-lock it, and two refunds of one
      // order each waiting to upgrade that lock would deadlock. Locked, the audit entry's "before" is what this refund changed.
      const order = await trx
        .selectFrom("orders")
        .select(["number", "status", "refunded_cents", "items"])
        .where("id", "=", orderId)
        .forUpdate()
        .executeTakeFirst();
      if (!order) return "not-ours";
      const inserted = await trx
        .insertInto("order_refunds")
        .values({
          id: refund.id,
          order_id: orderId,
          amount_cents: refund.amountCents,
          idempotency_key: idempotencyKey ?? refund.metadata[CONSOLE_KEY_KEY] ?? null,
          actor: actor.email,
        })
        .onConflict((conflict) => conflict.doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!inserted) return "already-recorded";
      const status = await orders.recordRefund(orderId, refund.amountCents, actor.email, undefined, trx);
      await email.enqueueOrderRefunded(trx, { orderId, refundId: refund.id, amountCents: refund.amountCents });
      if (refund.metadata[RESTOCK_KEY] === "true" && inventory) {
        const items = order.items.map(readOrderItem);
        await inventory.restock(
          trx,
          items.map((item) => ({ variantId: item.variantId ?? item.productId, quantity: item.quantity })),
          orderId,
          actor.email,
        );
      }
      await recordAudit(trx, actor, {
        action: "order.refund",
        subject: order.number,
        before: { status: order.status, refunded: formatCents(order.refunded_cents) },
        after: {
          status,
          refunded: formatCents(order.refunded_cents + refund.amountCents),
          refund: refund.id,
          amount: formatCents(refund.amountCents),
        },
      });
      return "recorded";
    });
  }

  /** What the processor has not yet given back of a payment: its amount less every refund not failed or cancelled. */
  async function leftToRefundAtProcessor(paymentIntentId: string, amountCents: number): Promise<number> {
    const refunds = await provider.listRefunds(paymentIntentId);
    return (
      amountCents -
      refunds
        .filter((made) => made.status !== "failed" && made.status !== "canceled")
        .reduce((sum, made) => sum + made.amountCents, 0)
    );
  }

  /** The console's refund: checked against what is left, made by the processor, recorded from its answer. */
  async function refund(
    actor: Actor,
    number: string,
    input: { amountCents: number | null; idempotencyKey: string; restock?: boolean },
    within?: { afterCancel: true },
  ) {
    const order = await orderByNumber(number);
    if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
    // The same form sent again (a double click, a reload): the refund it made, not another one.
    const earlier = await db
      .selectFrom("order_refunds")
      .select(["id", "amount_cents"])
      .where("idempotency_key", "=", input.idempotencyKey)
      .where("order_id", "=", order.id)
      .executeTakeFirst();
    if (earlier) return { refundId: earlier.id, amountCents: earlier.amount_cents };
    const left = order.amount_cents - order.refunded_cents;
    if (left <= 0) throw new AppError("BAD_REQUEST", ALREADY_REFUNDED, { details: { field: "amount" } });
    if (!within && !orderAllows(order.status, "refund")) {
      throw new AppError("ORDER_TRANSITION_REFUSED", `Order ${order.number} cannot be refunded.`);
    }
    const amountCents = input.amountCents ?? left;
    if (amountCents < 1)
      throw new AppError("BAD_REQUEST", "Enter an amount of at least $0.01.", { details: { field: "amount" } });
    if (amountCents > left)
      throw new AppError("BAD_REQUEST", `You can refund at most ${formatCents(left)}.`, {
        details: { field: "amount" },
      });
    const made = await provider
      .createRefund({
        paymentIntentId: order.id,
        amountCents,
        idempotencyKey: `console-refund-${input.idempotencyKey}`,
        metadata: {
          [OPERATOR_EMAIL_KEY]: actor.email,
          [OPERATOR_ID_KEY]: actor.id ?? "",
          [CONSOLE_KEY_KEY]: input.idempotencyKey,
          ...(input.restock ? { [RESTOCK_KEY]: "true" } : {}),
        },
      })
      .catch(async (error: unknown) => {
        // The provider's sentences speak to a paying shopper; an operator refunding needs to know what to do.
        if (!(error instanceof AppError)) throw error;
        // Another refund made at the same moment may have taken what was left: the processor refused this one for
        // its amount. Its own list of refunds says so, and what is left now.
        const leftAtProcessor = await leftToRefundAtProcessor(order.id, order.amount_cents).catch(
          (listError: unknown) => {
            logger.warn(
              { err: listError, orderId: order.id },
              "console: the processor's refunds could not be listed after a refused refund; answering without them",
            );
            return null;
          },
        );
        if (leftAtProcessor !== null && leftAtProcessor <= 0)
          throw new AppError("BAD_REQUEST", ALREADY_REFUNDED, { details: { field: "amount" }, cause: error });
        if (leftAtProcessor !== null && amountCents > leftAtProcessor) {
          throw new AppError("BAD_REQUEST", `You can refund at most ${formatCents(leftAtProcessor)}.`, {
            details: { field: "amount" },
            cause: error,
          });
        }
        throw new AppError(
          error.code,
          "The payment service did not confirm the refund. Send the form again: it refunds at most once.",
          { cause: error },
        );
      });
    if (made.status !== "succeeded") {
      // Pending refunds (some payment methods) are recorded when the processor's refund.updated says they succeeded.
      logger.info({ refundId: made.id, status: made.status }, "console: refund not yet succeeded");
      return { refundId: made.id, amountCents: 0 };
    }
    // The items go back in stock with the refund's record, once: by this call or by the webhook, whichever is first.
    await recordProcessorRefund(made, input.idempotencyKey);
    return { refundId: made.id, amountCents: made.amountCents };
  }

  return {
    recordProcessorRefund,

    /** What a charge.refunded event means: every succeeded refund of the intent, each recorded once. */
    async reconcileRefunds(paymentIntentId: string): Promise<number> {
      const known = await db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).executeTakeFirst();
      if (!known) return 0;
      let recorded = 0;
      for (const made of await provider.listRefunds(paymentIntentId))
        if ((await recordProcessorRefund(made)) === "recorded") recorded++;
      return recorded;
    },

    /**
     * All orders, newest paid first, by keyset on (paid_at, id) (the orders_paid and orders_status_paid indexes;
     * orders_oversold_status for those needing attention), so any page costs what the first does. A search is an order
     * number, or an e-mail (whole, any case).
     */
    async listOrders(
      filter: AdminOrderFilter & { after?: string | null },
    ): Promise<{ orders: AdminOrderRow[]; next: string | null }> {
      let query = filterOrders(
        db
          .selectFrom("orders")
          .select([
            "id",
            "number",
            "paid_at",
            "status",
            "amount_cents",
            "refunded_cents",
            "contact_email",
            "livemode",
            "oversold",
            "promotion_over_limit",
          ])
          .orderBy("paid_at", "desc")
          .orderBy("id", "desc")
          .limit(ADMIN_ORDERS_PAGE_SIZE + 1),
        filter,
      );
      const after = ordersCursor.decode(filter.after);
      if (after) query = query.where(sql<boolean>`(paid_at, id) < (${after.at}, ${after.id})`);
      const rows = await query.execute();
      const page = ordersCursor.page(rows, ADMIN_ORDERS_PAGE_SIZE, (row) => ({ at: row.paid_at, id: row.id }));
      return {
        orders: page.rows.map((row) => ({
          id: row.id,
          number: row.number,
          paidAt: row.paid_at,
          status: row.status,
          amountCents: row.amount_cents,
          refundedCents: row.refunded_cents,
          contactEmail: row.contact_email,
          isTest: row.livemode !== true,
          isOversold: row.oversold,
          isPromotionOverLimit: row.promotion_over_limit,
        })),
        next: page.next,
      };
    },

    /** One order in full, with its history (who did what) and its refunds. */
    async getOrder(number: string) {
      const row = await orderByNumber(number);
      if (!row) return null;
      const [history, refunds] = await Promise.all([
        db
          .selectFrom("order_status_history")
          .select(["status", "created_at", "carrier", "tracking_number", "amount_cents", "note", "actor"])
          .where("order_id", "=", row.id)
          .orderBy("id")
          .execute(),
        db
          .selectFrom("order_refunds")
          .select(["id", "amount_cents", "actor", "created_at"])
          .where("order_id", "=", row.id)
          .orderBy("created_at")
          .execute(),
      ]);
      return {
        id: row.id,
        number: row.number,
        status: row.status,
        amountCents: row.amount_cents,
        refundedCents: row.refunded_cents,
        currency: row.currency,
        paidAt: row.paid_at,
        items: row.items.map(readOrderItem),
        pricing: row.pricing,
        contactEmail: row.contact_email,
        deliveryAddress: row.delivery_address,
        card: row.card_brand && row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
        processor: row.processor,
        promotion: row.promotion_code
          ? { code: row.promotion_code, discountCents: row.discount_cents, isOverLimit: row.promotion_over_limit }
          : null,
        isTest: row.livemode !== true,
        history,
        refunds,
      };
    },

    /** "Mark as shipped": the status, the shopper's shipped e-mail and the audit entry, in one transaction. */
    async markShipped(
      actor: Actor,
      number: string,
      shipment: { carrier: string; trackingNumber: string },
    ): Promise<void> {
      const order = await orderByNumber(number);
      if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
      await db.transaction().execute(async (trx: Writer) => {
        await orders.markShipped(order.id, shipment, actor.email, trx);
        await email.enqueueOrderShipped(trx, {
          orderId: order.id,
          carrier: shipment.carrier.trim(),
          trackingNumber: shipment.trackingNumber.trim(),
        });
        await recordAudit(trx, actor, {
          action: "order.ship",
          subject: order.number,
          before: { status: order.status },
          after: {
            status: "shipped",
            carrier: shipment.carrier.trim(),
            trackingNumber: shipment.trackingNumber.trim(),
          },
        });
      });
    },

    refund: (
      actor: Actor,
      number: string,
      input: { amountCents: number | null; idempotencyKey: string; restock?: boolean },
    ) => refund(actor, number, input),

    /** "Cancel and refund": cancelled (with its audit entry), then everything left given back. */
    async cancelAndRefund(actor: Actor, number: string, idempotencyKey: string) {
      const order = await orderByNumber(number);
      if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
      if (order.status !== "cancelled") {
        try {
          await db.transaction().execute(async (trx: Writer) => {
            await orders.cancel(order.id, actor.email, undefined, trx);
            await recordAudit(trx, actor, {
              action: "order.cancel",
              subject: order.number,
              before: { status: order.status },
              after: { status: "cancelled" },
            });
          });
        } catch (error) {
          // The same form sent twice at once: the other request cancelled it; go on to the (same) refund.
          if (!(error instanceof AppError && error.details?.status === "cancelled")) throw error;
        }
      }
      if (order.amount_cents - order.refunded_cents <= 0) return { refundId: null, amountCents: 0 };
      return refund(actor, number, { amountCents: null, idempotencyKey }, { afterCancel: true });
    },
  };
}

export type AdminOrders = ReturnType<typeof createAdminOrders>;
