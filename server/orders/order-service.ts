// Orders: the paid order and its status history, the statuses' changes (ship, cancel, refund, dispute) with who made
// them, an owner's pages of orders, and a guest's adopted or a deleted account's anonymised.

import { sql } from "kysely";
import type { DB, Writer } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { OrderProcessor } from "#server/db/schema";
import { newOrderNumber } from "./order-number";
import { createOrderReads } from "./order-reads";
import type { DeliveryAddress } from "#shared/address";
import type { PriceBreakdown } from "#shared/pricing";
import type { PromotionKindName } from "#shared/promotions";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import {
  FULFILMENT_STATUS_LABELS,
  PAYMENT_STATUS_LABELS,
  orderAllows,
  paymentStatusAfterRefund,
  canBeDisputed,
  readOrderItem,
  type FulfilmentStatus,
  type OrderState,
  type OrderStatus,
  type PaymentStatus,
  type StoredOrderItem,
  fulfilmentStatusAfterReturn,
} from "#shared/orders";

/** Who changed an order: an operator (by e-mail or id), "processor" for its events, "shop" for the shop itself. */
export type Actor = string;

const TRACKING_LIMITS = { carrier: 100, trackingNumber: 100, note: 500, actor: 254 } as const;

/** A paid order as checkout hands it over: what its payment held, and what the processor says was paid. */
export interface PaidOrder {
  /** The payment intent's id: one order per intent. */
  id: string;
  /** SF-YYMM-XXXX, drawn by the caller; a clash with another order's is answered null (draw again). */
  number: string;
  userId: string | null;
  sessionId: string | null;
  amountCents: number;
  currency: string;
  items: StoredOrderItem[];
  pricing: PriceBreakdown | null;
  processor: OrderProcessor | null;
  livemode: boolean | null;
  /** When the intent was first created (it may have been paid much later). */
  createdAt: Date;
  deliveryAddress: DeliveryAddress | null;
  contactEmail: string | null;
  card: { brand: string; last4: string } | null;
  promotion: { code: string; kind: PromotionKindName } | null;
  discountCents: number;
}

/** An order's row as `recordPaidOrder` writes it: JSON columns as text, the card and the code as their columns. */
type PaidOrderRow = Omit<PaidOrder, "items" | "pricing" | "deliveryAddress" | "card" | "promotion"> & {
  items: string;
  pricing: string | null;
  deliveryAddress: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  promotionCode: string | null;
  promotionKind: PromotionKindName | null;
};

const PAID_ORDER_COLUMNS = [
  "id",
  "number",
  "userId",
  "sessionId",
  "amountCents",
  "currency",
  "items",
  "pricing",
  "processor",
  "livemode",
  "createdAt",
  "deliveryAddress",
  "contactEmail",
  "cardBrand",
  "cardLast4",
  "promotionCode",
  "promotionKind",
  "discountCents",
] as const satisfies readonly (keyof PaidOrderRow)[];

export function createOrderService(db: DB) {
  /** The order and its first status ("paid", by the shop), built and compiled once: every checkout writes one. */
  const insertPaidOrder = preparedStatement(db, PAID_ORDER_COLUMNS, (db, order: PaidOrderRow) =>
    db
      .with("inserted", (db) =>
        db
          .insertInto("orders")
          .values({
            id: order.id,
            number: order.number,
            user_id: order.userId,
            session_id: order.sessionId,
            amount_cents: order.amountCents,
            currency: order.currency,
            items: order.items,
            pricing: order.pricing,
            processor: order.processor,
            livemode: order.livemode,
            created_at: order.createdAt,
            delivery_address: order.deliveryAddress,
            contact_email: order.contactEmail,
            card_brand: order.cardBrand,
            card_last4: order.cardLast4,
            promotion_code: order.promotionCode,
            promotion_kind: order.promotionKind,
            discount_cents: order.discountCents,
          })
          // Either key: the order exists already (recorded by another path), or the number is taken.
          .onConflict((conflict) => conflict.doNothing())
          .returning(["id", "number"]),
      )
      .with("history", (db) =>
        db
          .insertInto("order_status_history")
          .columns(["order_id", "status", "actor"])
          .expression((eb) =>
            eb
              .selectFrom("inserted")
              .select(["inserted.id", sql<OrderStatus>`'paid'`.as("status"), sql<string>`'shop'`.as("actor")]),
          ),
      )
      .selectFrom("inserted")
      .select(["inserted.id", "inserted.number"]),
  );

  /**
   * Writes a paid order and its first status ("paid", by the shop), in the caller's transaction (checkout's, which
   * settles the payment in the same one). Once per intent: when the intent has its order already, or the number is
   * another order's, nothing is written and the answer is null (the caller tells which by reading the order).
   */
  async function recordPaidOrder(
    trx: Writer,
    order: PaidOrder,
  ): Promise<{ orderId: string; orderNumber: string } | null> {
    // The order and its first status in one statement: the history's row only when the order's was written.
    const [inserted] = (
      await insertPaidOrder(
        {
          id: order.id,
          number: order.number,
          userId: order.userId,
          sessionId: order.sessionId,
          amountCents: order.amountCents,
          currency: order.currency,
          items: JSON.stringify(order.items),
          // What the payment was priced at, kept whole: the order page, the e-mail and the console show these figures.
          pricing: order.pricing ? JSON.stringify(order.pricing) : null,
          processor: order.processor,
          livemode: order.livemode,
          createdAt: order.createdAt,
          deliveryAddress: order.deliveryAddress ? JSON.stringify(order.deliveryAddress) : null,
          contactEmail: order.contactEmail,
          cardBrand: order.card?.brand ?? null,
          cardLast4: order.card?.last4 ?? null,
          promotionCode: order.promotion?.code ?? null,
          promotionKind: order.promotion?.kind ?? null,
          discountCents: order.discountCents,
        },
        trx,
      )
    ).rows;
    if (!inserted) return null;
    return { orderId: inserted.id, orderNumber: inserted.number };
  }

  /**
   * Puts a just-paid order on the console's "Needs attention": paid after its hold lapsed for stock that had gone
   * (`oversold`), or after its code's last use went to someone else (`promotionOverLimit`). In the order's transaction.
   */
  async function flagPaidOrder(
    trx: Writer,
    orderId: string,
    flags: { oversold?: true; promotionOverLimit?: true },
  ): Promise<void> {
    const set = {
      ...(flags.oversold ? { oversold: true } : {}),
      ...(flags.promotionOverLimit ? { promotion_over_limit: true } : {}),
    };
    if (Object.keys(set).length === 0) return;
    await trx.updateTable("orders").set(set).where("id", "=", orderId).execute();
  }

  /**
   * Locks the order, lets `decide` refuse or choose the change, applies it and appends it to the history: `status` is
   * the history's step, and the payment or fulfilment status it moves.
   */
  async function transition(
    orderId: string,
    actor: Actor,
    decide: (
      order: OrderState & { status: OrderStatus; amount_cents: number; refunded_cents: number; number: string },
    ) => {
      status: OrderStatus;
      payment?: PaymentStatus;
      fulfilment?: FulfilmentStatus;
      refundedCents?: number;
      history: { carrier?: string; trackingNumber?: string; amountCents?: number; note?: string };
    },
    within?: Writer,
  ): Promise<OrderStatus> {
    const who = actor.trim().slice(0, TRACKING_LIMITS.actor);
    if (!who) throw new AppError("BAD_REQUEST", "Say who is making the change.");
    // Inside a caller's transaction (the console's, with its e-mail and audit entry), or in one of its own.
    const inTransaction = <T>(run: (trx: Writer) => Promise<T>) =>
      within?.isTransaction ? run(within) : db.transaction().execute(run);
    return inTransaction(async (trx) => {
      const order = await trx
        .selectFrom("orders")
        .select(["status", "amount_cents", "refunded_cents", "number", "payment_status", "fulfilment_status"])
        .where("id", "=", orderId)
        .forUpdate()
        .executeTakeFirst();
      if (!order) throw new AppError("NOT_FOUND", "There is no such order.");
      const change = decide({
        ...order,
        paymentStatus: order.payment_status,
        fulfilmentStatus: order.fulfilment_status,
      });
      await trx
        .updateTable("orders")
        .set({
          status: change.status,
          ...(change.payment ? { payment_status: change.payment } : {}),
          ...(change.fulfilment ? { fulfilment_status: change.fulfilment } : {}),
          ...(change.refundedCents === undefined ? {} : { refunded_cents: change.refundedCents }),
        })
        .where("id", "=", orderId)
        .execute();
      await trx
        .insertInto("order_status_history")
        .values({
          order_id: orderId,
          status: change.status,
          carrier: change.history.carrier ?? null,
          tracking_number: change.history.trackingNumber ?? null,
          amount_cents: change.history.amountCents ?? null,
          note: change.history.note ?? null,
          actor: who,
        })
        .execute();
      return change.status;
    });
  }

  /** "Order SF-… is shipped, so it cannot be cancelled.": named by the status that stands in the way. */
  function refuse(
    order: OrderState & { number: string },
    what: string,
    by: "payment" | "fulfilment" = "fulfilment",
  ): never {
    const label =
      by === "payment" ? PAYMENT_STATUS_LABELS[order.paymentStatus] : FULFILMENT_STATUS_LABELS[order.fulfilmentStatus];
    throw new AppError(
      "ORDER_TRANSITION_REFUSED",
      `Order ${order.number} is ${label.toLowerCase()}, so it cannot be ${what}.`,
      {
        details: {
          status: by === "payment" ? order.paymentStatus : order.fulfilmentStatus,
          paymentStatus: order.paymentStatus,
          fulfilmentStatus: order.fulfilmentStatus,
        },
      },
    );
  }

  function boundedText(value: string, max: number, name: string): string {
    const text = value.trim();
    if (!text) throw new AppError("BAD_REQUEST", `Enter the ${name}.`);
    if (text.length > max) throw new AppError("BAD_REQUEST", `The ${name} must be at most ${max} characters.`);
    return text;
  }

  /**
   * A replacement order: the units a return is replaced with, at $0.00 (nothing is charged: processor "none"), to the
   * returned order's owner, receipt address and delivery address, linked to its return, in the return's transaction.
   * Then it is an order like any other: to ship, on the console's list, with its own number. Once per return (its id
   * is the return's, and `replaces_return_id` is unique): a second call answers the order the first wrote.
   */
  async function recordReplacementOrder(
    trx: Writer,
    replacement: {
      returnId: string;
      original: {
        userId: string | null;
        sessionId: string | null;
        currency: string;
        livemode: boolean | null;
        deliveryAddress: DeliveryAddress | null;
        contactEmail: string | null;
      };
      items: StoredOrderItem[];
    },
  ): Promise<{ orderId: string; orderNumber: string; isNew: boolean }> {
    const id = `rp_${replacement.returnId.replace(/-/g, "")}`;
    for (let draw = 1; draw <= 8; draw++) {
      const now = new Date();
      const written = await recordPaidOrder(trx, {
        id,
        number: newOrderNumber(now),
        userId: replacement.original.userId,
        sessionId: replacement.original.sessionId,
        amountCents: 0,
        currency: replacement.original.currency,
        items: replacement.items,
        pricing: null,
        processor: "none",
        livemode: replacement.original.livemode,
        createdAt: now,
        deliveryAddress: replacement.original.deliveryAddress,
        contactEmail: replacement.original.contactEmail,
        card: null,
        promotion: null,
        discountCents: 0,
      });
      if (written) {
        await trx
          .updateTable("orders")
          .set({ replaces_return_id: replacement.returnId })
          .where("id", "=", id)
          .execute();
        return { ...written, isNew: true };
      }
      const existing = await trx.selectFrom("orders").select("number").where("id", "=", id).executeTakeFirst();
      if (existing) return { orderId: id, orderNumber: existing.number, isNew: false };
    }
    throw new Error("orders: no free order number for a replacement after several draws");
  }

  /**
   * Units back from returns, in the return's transaction: "Partially returned" or "Returned" by the one rule
   * (fulfilmentStatusAfterReturn). The order's row is locked before `countReturned` reads, so returns of one order
   * received at once each count the other's units; the status is written only when it moves. Answers the status.
   */
  async function recordReturnedUnits(
    trx: Writer,
    orderId: string,
    countReturned: (trx: Writer) => Promise<number>,
  ): Promise<FulfilmentStatus | null> {
    const order = await trx
      .selectFrom("orders")
      .select(["items", "fulfilment_status"])
      .where("id", "=", orderId)
      .forUpdate()
      .executeTakeFirst();
    if (!order) return null;
    const sold = order.items.reduce((sum, item) => sum + readOrderItem(item).quantity, 0);
    const status = fulfilmentStatusAfterReturn(order.fulfilment_status, sold, await countReturned(trx));
    if (status !== order.fulfilment_status)
      await trx.updateTable("orders").set({ fulfilment_status: status }).where("id", "=", orderId).execute();
    return status;
  }

  return {
    recordPaidOrder,
    flagPaidOrder,
    recordReplacementOrder,
    recordReturnedUnits,
    ...createOrderReads(db),

    /** Handed to the carrier. Only a paid order (or one partly refunded) that has not shipped can ship. */
    async markShipped(
      orderId: string,
      shipment: { carrier: string; trackingNumber: string },
      actor: Actor,
      within?: Writer,
    ): Promise<OrderStatus> {
      const carrier = boundedText(shipment.carrier, TRACKING_LIMITS.carrier, "carrier");
      const trackingNumber = boundedText(shipment.trackingNumber, TRACKING_LIMITS.trackingNumber, "tracking number");
      return transition(
        orderId,
        actor,
        (order) => {
          if (!orderAllows(order, "ship"))
            refuse(order, "shipped", order.fulfilmentStatus === "unfulfilled" ? "payment" : "fulfilment");
          return { status: "shipped", fulfilment: "shipped", history: { carrier, trackingNumber } };
        },
        within,
      );
    },

    /** Cancelled before it shipped. The money goes back through a refund, recorded with recordRefund. */
    async cancel(orderId: string, actor: Actor, reason?: string, within?: Writer): Promise<OrderStatus> {
      const note = reason ? boundedText(reason, TRACKING_LIMITS.note, "reason") : undefined;
      return transition(
        orderId,
        actor,
        (order) => {
          if (!orderAllows(order, "cancel")) refuse(order, "cancelled");
          return { status: "cancelled", fulfilment: "cancelled", history: { note } };
        },
        within,
      );
    },

    /**
     * Money given back: "Refunded" once all of it is, "Partially refunded" before. Refunding more than was paid (all
     * refunds together), or a whole-cents amount below one, is refused.
     */
    async recordRefund(
      orderId: string,
      amountCents: number,
      actor: Actor,
      reason?: string,
      within?: Writer,
    ): Promise<OrderStatus> {
      if (!Number.isSafeInteger(amountCents) || amountCents < 1)
        throw new AppError("BAD_REQUEST", "A refund is a whole number of cents, at least 1.");
      const note = reason ? boundedText(reason, TRACKING_LIMITS.note, "reason") : undefined;
      return transition(
        orderId,
        actor,
        (order) => {
          if (!orderAllows(order, "refund")) refuse(order, "refunded", "payment");
          const refunded = order.refunded_cents + amountCents;
          if (refunded > order.amount_cents) {
            throw new AppError(
              "ORDER_TRANSITION_REFUSED",
              `Order ${order.number} was paid ${formatCents(order.amount_cents)} and ${formatCents(order.refunded_cents)} of it is refunded already, so at most ${formatCents(order.amount_cents - order.refunded_cents)} can be refunded.`,
              { details: { refundableCents: order.amount_cents - order.refunded_cents } },
            );
          }
          const payment = paymentStatusAfterRefund(order.amount_cents, refunded);
          return {
            status: payment,
            payment: paymentStatusAfterRefund(order.amount_cents, refunded, order.paymentStatus),
            refundedCents: refunded,
            history: { amountCents, note },
          };
        },
        within,
      );
    },

    /** The card's holder disputed the payment (the processor's dispute event). A refunded order has nothing to dispute. */
    async recordDispute(
      orderId: string,
      dispute: { amountCents: number; reason?: string },
      actor: Actor,
    ): Promise<OrderStatus> {
      const note = dispute.reason ? boundedText(dispute.reason, TRACKING_LIMITS.note, "reason") : undefined;
      return transition(orderId, actor, (order) => {
        if (!canBeDisputed(order.paymentStatus)) refuse(order, "disputed", "payment");
        if (
          !Number.isSafeInteger(dispute.amountCents) ||
          dispute.amountCents < 1 ||
          dispute.amountCents > order.amount_cents
        ) {
          throw new AppError(
            "BAD_REQUEST",
            `A dispute is for between 1 cent and the ${formatCents(order.amount_cents)} paid.`,
          );
        }
        return { status: "disputed", payment: "disputed", history: { amountCents: dispute.amountCents, note } };
      });
    },

    /**
     * At account deletion, in its transaction: the account's orders stay for the shop's books but name nobody: the
     * link to the account and the receipt e-mail go, and the delivery address keeps only its country (what the books
     * need for tax), its name and lines reading "deleted account". Its payments are checkout's (anonymisePaymentsOf).
     */
    async anonymiseOrdersOf(writer: Writer, userId: string): Promise<void> {
      await writer
        .updateTable("orders")
        .set({ user_id: null, session_id: null, contact_email: null, delivery_address: erasedDeliveryAddress })
        .where("user_id", "=", userId)
        .execute();
    },

    /** At sign-in: a guest's orders join the account (its payments in progress: checkout's adoptGuestPayments). */
    async adoptGuestOrders(sessionId: string, userId: string): Promise<void> {
      await db
        .updateTable("orders")
        .set({ user_id: userId, session_id: null })
        .where("session_id", "=", sessionId)
        .execute();
    },
  };
}

/**
 * A deleted account's delivery address as the books keep it, on its orders and its paid payments alike: only the
 * country (what the books need for tax), with name and lines reading "deleted account".
 */
export const erasedDeliveryAddress = sql<string>`case when delivery_address is null then null else jsonb_build_object(
  'name', 'deleted account', 'line1', 'deleted account', 'line2', null, 'city', 'deleted account',
  'region', null, 'postalCode', '', 'country', delivery_address->'country') end`;

export type OrderService = ReturnType<typeof createOrderService>;
