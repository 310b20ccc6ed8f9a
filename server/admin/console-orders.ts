/**
 * The console's side of orders: every shopper's orders by keyset, one order in full with what its refunds took, and
 * "Mark as shipped"; the refunds themselves (server/refunds/order-refunds.ts) are the console's through it.
 */

import { sql, type SelectQueryBuilder } from "kysely";
import type { DB, Writer } from "#server/db/client";
import type { Database } from "#server/db/schema";
import { keysetCursor } from "#server/db/keyset-cursor";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { Logger } from "#server/logger";
import type { BalanceLedger } from "#server/balances/balance-ledger";
import type { GiftCardService } from "#server/gift-cards/gift-card-service";
import type { InventoryService } from "#server/inventory/inventory-service";
import type { OrderService } from "#server/orders/order-service";
import type { PaymentProvider } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import { chargedOrder } from "#server/pricing/refund";
import {
  ORDER_LIST_FILTERS,
  ORDER_NUMBER_PATTERN,
  readOrderItem,
  type FulfilmentStatus,
  type OrderListFilter,
  type OrderStatus,
  type PaymentStatus,
} from "#shared/orders";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { orderNeedsAttention, ordersInMode } from "#server/orders/needs-attention";
import { createOrderRefunds } from "#server/refunds/order-refunds";

export const ADMIN_ORDERS_PAGE_SIZE = 50;

export interface AdminOrderRow {
  id: string;
  number: string;
  paidAt: Date;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  fulfilmentStatus: FulfilmentStatus;
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
  /** A payment or fulfilment status, or "paid": every order to ship (ORDER_LIST_FILTERS). */
  status?: OrderListFilter;
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
  if (filter.status) {
    const wanted: { fulfilment?: FulfilmentStatus; payment?: PaymentStatus } = ORDER_LIST_FILTERS[filter.status];
    if (wanted.fulfilment) filtered = filtered.where("fulfilment_status", "=", wanted.fulfilment) as Query;
    if (wanted.payment) filtered = filtered.where("payment_status", "=", wanted.payment) as Query;
  }
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

export function createAdminOrders(
  db: DB,
  orders: OrderService,
  provider: PaymentProvider,
  email: EmailOutbox,
  logger: Logger,
  inventory?: InventoryService,
  ledger?: BalanceLedger,
  giftCards?: Pick<GiftCardService, "refundableOf" | "takeBack" | "outstandingOf">,
) {
  const refunds = createOrderRefunds(db, orders, provider, email, logger, inventory, ledger, giftCards);
  const { orderByNumber, refundHistory } = refunds;

  return {
    recordProcessorRefund: refunds.recordProcessorRefund,
    reconcileRefunds: refunds.reconcileRefunds,
    refund: refunds.refund,
    restockReturn: refunds.restockReturn,
    quoteRefund: refunds.quoteRefund,
    cancelAndRefund: refunds.cancelAndRefund,

    /**
     * All orders, newest paid first, by keyset on (paid_at, id) (the orders_paid and orders_status_paid indexes;
     * orders_oversold_status for those needing attention), so any page costs what the first does. A search is an order
     * number, or an e-mail (whole, any case).
     */
    async listOrders(
      filter: AdminOrderFilter & { after?: string | null },
    ): Promise<{ orders: AdminOrderRow[]; next: string | null }> {
      const query = filterOrders(
        db
          .selectFrom("orders")
          .select([
            "id",
            "number",
            "paid_at",
            "status",
            "payment_status",
            "fulfilment_status",
            "amount_cents",
            "refunded_cents",
            "contact_email",
            "livemode",
            "oversold",
            "promotion_over_limit",
          ]),
        filter,
      );
      const page = await ordersCursor.readPage(query, {
        after: filter.after,
        pageSize: ADMIN_ORDERS_PAGE_SIZE,
        order: { at: "paid_at", id: "id" },
        keyOf: (row) => ({ at: row.paid_at, id: row.id }),
      });
      return {
        orders: page.rows.map((row) => ({
          id: row.id,
          number: row.number,
          paidAt: row.paid_at,
          status: row.status,
          paymentStatus: row.payment_status,
          fulfilmentStatus: row.fulfilment_status,
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
      const items = row.items.map(readOrderItem);
      const [history, refunds, taken, replaced] = await Promise.all([
        db
          .selectFrom("order_status_history")
          .select(["status", "created_at", "carrier", "tracking_number", "amount_cents", "note", "actor"])
          .where("order_id", "=", row.id)
          .orderBy("id")
          .execute(),
        db
          .selectFrom("order_refunds")
          .select(["id", "amount_cents", "shipping_cents", "reason", "actor", "created_at", "destination"])
          .where("order_id", "=", row.id)
          .orderBy("created_at")
          .execute(),
        refundHistory(db, row.id, items.length),
        row.replaces_return_id
          ? db.selectFrom("returns").select("number").where("id", "=", row.replaces_return_id).executeTakeFirst()
          : undefined,
      ]);
      return {
        id: row.id,
        number: row.number,
        status: row.status,
        paymentStatus: row.payment_status,
        fulfilmentStatus: row.fulfilment_status,
        amountCents: row.amount_cents,
        refundedCents: row.refunded_cents,
        currency: row.currency,
        paidAt: row.paid_at,
        /** Each line with the units refunded and put back in stock so far. */
        items: items.map((item, index) => ({
          ...item,
          refundedQuantity: taken.refunded[index] ?? 0,
          restockedQuantity: taken.restocked[index] ?? 0,
        })),
        /** Shipping with its tax as charged, while not yet given back: what "Include shipping" adds. */
        refundableShippingCents: taken.shippingRefunded
          ? 0
          : chargedOrder(items, row.pricing, row.amount_cents).shippingCents,
        pricing: row.pricing,
        contactEmail: row.contact_email,
        deliveryAddress: row.delivery_address,
        card: row.card_brand && row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
        processor: row.processor,
        promotion: row.promotion_code
          ? { code: row.promotion_code, discountCents: row.discount_cents, isOverLimit: row.promotion_over_limit }
          : null,
        isTest: row.livemode !== true,
        /** A replacement order: the number of the return it replaces (it was sent at $0.00, nothing charged). */
        replacesReturnNumber: replaced?.number ?? null,
        /** Placed with an account: it can be refunded to the account's store credit. */
        hasAccount: row.user_id !== null,
        /** The balances that paid part of it ("Store credit", "Gift card ending 7XQ2"), given back first. */
        balances: row.pricing?.balances ?? [],
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
  };
}

export type AdminOrders = ReturnType<typeof createAdminOrders>;
