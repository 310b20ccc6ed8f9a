// The shopper's reads of their orders: the list, one order's page (also by a guest's signed link), "Find an order".

import { jsonArrayFrom } from "kysely/helpers/postgres";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { DB } from "#server/db/client";
import { keysetCursor } from "#server/db/keyset-cursor";
import {
  ORDER_NUMBER_PATTERN,
  ORDERS_PAGE_SIZE,
  orderLineAmounts,
  readOrderItem,
  type OrderDetail,
  type OrderView,
} from "#shared/orders";
import { isOrderAccessSignature, signedOrderPath } from "./order-access";

/** Pages of an owner's orders: (paid_at, intent id) of the previous page's last order. */
const ordersCursor = keysetCursor(/^[A-Za-z0-9_]{1,100}$/);

/**
 * Orders as the shopper reads them: their list, one order's page (by its owner or by the guest's signed link) and
 * "Find an order". Read-only, apart from the order service's writes, which it hands these to.
 */
export function createOrderReads(db: DB) {
  /** Orders with their history, read in one statement: the page waits for one round trip, not two. */
  function ordersWithHistory() {
    return (
      db
        .selectFrom("orders")
        .selectAll()
        .select((eb) =>
          jsonArrayFrom(
            eb
              .selectFrom("order_status_history as h")
              .select(["h.status", "h.created_at", "h.carrier", "h.tracking_number", "h.amount_cents", "h.note"])
              .whereRef("h.order_id", "=", "orders.id")
              .orderBy("h.id"),
          ).as("history"),
        )
        // A replacement order names the return it replaces: the shopper's and the console's page say so.
        .select((eb) =>
          eb
            .selectFrom("returns")
            .select("returns.number")
            .whereRef("returns.id", "=", "orders.replaces_return_id")
            .as("replaces_return_number"),
        )
    );
  }
  type OrderWithHistory = NonNullable<Awaited<ReturnType<ReturnType<typeof ordersWithHistory>["executeTakeFirst"]>>>;

  /** An order's row as its own page shows it, with its history. */
  function detailOf(row: OrderWithHistory): OrderDetail {
    return {
      id: row.id,
      number: row.number,
      amountCents: row.amount_cents,
      currency: row.currency,
      createdAt: row.paid_at.toISOString(),
      status: row.status,
      paymentStatus: row.payment_status,
      fulfilmentStatus: row.fulfilment_status,
      refundedCents: row.refunded_cents,
      items: row.items.map(readOrderItem),
      lineAmountsCents: orderLineAmounts(row.items, row.pricing),
      contactEmail: row.contact_email,
      deliveryAddress: row.delivery_address,
      card: row.card_brand && row.card_last4 ? { brand: row.card_brand, last4: row.card_last4 } : null,
      isPaidByPromotion: row.processor === "none" && row.replaces_return_number === null,
      replacesReturnNumber: row.replaces_return_number,
      pricing: row.pricing,
      history: row.history.map((entry) => ({
        status: entry.status,
        // A timestamp inside JSON arrives as its text.
        at: new Date(entry.created_at).toISOString(),
        carrier: entry.carrier,
        trackingNumber: entry.tracking_number,
        amountCents: entry.amount_cents,
        note: entry.note,
      })),
    };
  }

  return {
    /**
     * One page of the owner's orders, newest paid first, after the cursor of the previous page's last order. Keyset
     * pagination on (paid_at, id), served by the orders_*_paid indexes, so page 50 costs what page 1 does however
     * many orders there are.
     */
    async listOrders(
      owner: BasketOwner | null,
      beforeCursor: string | null,
    ): Promise<{ orders: OrderView[]; next: string | null; isFirstPage: boolean }> {
      // A cursor that does not parse shows the first page, and says so.
      if (!owner) return { orders: [], next: null, isFirstPage: ordersCursor.decode(beforeCursor) === null };
      const { column, value } = ownerColumn(owner);
      const query = db
        .selectFrom("orders")
        .select([
          "id",
          "number",
          "amount_cents",
          "paid_at",
          "items",
          "status",
          "payment_status",
          "fulfilment_status",
          "refunded_cents",
          "pricing",
        ])
        .where(column, "=", value);
      const page = await ordersCursor.readPage(query, {
        after: beforeCursor,
        pageSize: ORDERS_PAGE_SIZE,
        order: { at: "paid_at", id: "id" },
        keyOf: (row) => ({ at: row.paid_at, id: row.id }),
      });
      const { isFirstPage } = page;
      return {
        orders: page.rows.map((row) => ({
          id: row.id,
          number: row.number,
          amountCents: row.amount_cents,
          createdAt: row.paid_at.toISOString(),
          status: row.status,
          paymentStatus: row.payment_status,
          fulfilmentStatus: row.fulfilment_status,
          refundedCents: row.refunded_cents,
          items: row.items.map(readOrderItem),
          lineAmountsCents: orderLineAmounts(row.items, row.pricing),
        })),
        next: page.next,
        isFirstPage,
      };
    },

    /**
     * One order as its owner sees it, by its number (or, for links written before numbers, its intent id). Anybody
     * else's order, and one that does not exist, are the same null: the page answers 404 to both.
     */
    async getOrder(owner: BasketOwner | null, numberOrId: string): Promise<OrderDetail | null> {
      if (!owner) return null;
      const key = numberOrId.toUpperCase();
      const { column, value } = ownerColumn(owner);
      let query = ordersWithHistory().where(column, "=", value);
      if (ORDER_NUMBER_PATTERN.test(key)) query = query.where("number", "=", key);
      else if (/^pi_[A-Za-z0-9]{1,64}$/.test(numberOrId)) query = query.where("id", "=", numberOrId);
      else return null;
      const row = await query.executeTakeFirst();
      return row ? detailOf(row) : null;
    },

    /**
     * One order by its number and the signature of the guest's signed link (order-access.ts): whoever holds the link.
     * A wrong signature, like a number that does not exist, is null: the page answers 404 to both.
     */
    async getOrderByAccess(numberOrId: string, signature: string | null): Promise<OrderDetail | null> {
      const key = numberOrId.toUpperCase();
      if (!signature || !ORDER_NUMBER_PATTERN.test(key)) return null;
      const row = await ordersWithHistory().where("number", "=", key).executeTakeFirst();
      if (!row || !isOrderAccessSignature(row.access_key, row.number, signature)) return null;
      return detailOf(row);
    },

    /**
     * "Find an order": the signed path of the order with this number whose receipt went to this e-mail (any case), or
     * null when there is none (the same answer whichever of the two is wrong).
     */
    async findGuestOrderPath(orderNumber: string, email: string): Promise<string | null> {
      const key = orderNumber.trim().toUpperCase();
      if (!ORDER_NUMBER_PATTERN.test(key)) return null;
      const row = await db
        .selectFrom("orders")
        .leftJoin("users", "users.id", "orders.user_id")
        .select(["orders.number", "orders.access_key", "orders.contact_email", "users.email"])
        .where("orders.number", "=", key)
        .executeTakeFirst();
      const receipt = (row?.contact_email ?? row?.email ?? "").toLowerCase();
      if (!row || !receipt || receipt !== email.trim().toLowerCase()) return null;
      return signedOrderPath({ number: row.number, accessKey: row.access_key });
    },

    /** The order's number by its intent id, for callers that hold the id (the console, the record call). */
    async findOrderNumber(orderId: string): Promise<string | null> {
      const row = await db.selectFrom("orders").select("number").where("id", "=", orderId).executeTakeFirst();
      return row?.number ?? null;
    },
  };
}
