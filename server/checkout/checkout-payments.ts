// The checkout_payments rows beyond the steps' own writes: payments under review and held for the console, a held
// payment marked refunded, a guest's adopted at sign-in, a deleted account's anonymised, and the start-up sweep.

import { sql } from "kysely";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { Writer } from "#server/db/client";
import { erasedDeliveryAddress } from "#server/orders/order-service";
import type { CheckoutContext, HeldPayment, PaymentUnderReview } from "./checkout-context";
import type { RecordOrderStep } from "./record-order-step";

/** Open intents the start-up sweep reads at a time. */
const SWEEP_PAGE_SIZE = 200;

/**
 * The checkout_payments rows outside the steps of one payment: what the shopper and the console read of payments held
 * for review, what sign-in and account deletion do to a shopper's payments, and the start-up sweep that records the
 * orders of payments nobody was there to record (it ends in the record order step).
 */
export function createCheckoutPayments(
  context: CheckoutContext,
  { recordOrder }: Pick<RecordOrderStep, "recordOrder">,
) {
  const { db } = context;
  return {
    /** The shopper's paid payments that did not match their basket: no order, a refund to come. Newest first. */
    async listPaymentsUnderReview(owner: BasketOwner | null): Promise<PaymentUnderReview[]> {
      if (!owner) return [];
      const { column, value } = ownerColumn(owner);
      const rows = await db
        .selectFrom("checkout_payments")
        .select(["payment_intent_id", "paid_amount_cents", "updated_at"])
        .where(column, "=", value)
        .where("status", "=", "needs_review")
        .orderBy("updated_at", "desc")
        .limit(20)
        .execute();
      return rows.map((row) => ({
        paymentIntentId: row.payment_intent_id,
        paidAmountCents: row.paid_amount_cents ?? 0,
        heldAt: row.updated_at.toISOString(),
      }));
    },

    /**
     * Every shopper's payments held for review in one mode (test or live; null: both), newest first: paid, no order,
     * each for the operator to refund (the console's "Needs attention"). At most `limit`; `count` is all of them.
     */
    async listHeldPayments(
      livemode: boolean | null,
      limit: number,
    ): Promise<{ payments: HeldPayment[]; count: number }> {
      const held = db
        .selectFrom("checkout_payments")
        .where("status", "=", "needs_review")
        .$if(livemode !== null, (query) => query.where(sql<boolean>`coalesce(livemode, false) = ${livemode}`));
      const [rows, total] = await Promise.all([
        held
          .select([
            "payment_intent_id",
            "paid_amount_cents",
            "amount_cents",
            "contact_email",
            "review_reason",
            "updated_at",
            "livemode",
          ])
          .orderBy("updated_at", "desc")
          .orderBy("payment_intent_id")
          .limit(limit)
          .execute(),
        held.select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow(),
      ]);
      return {
        payments: rows.map((row) => ({
          paymentIntentId: row.payment_intent_id,
          paidAmountCents: row.paid_amount_cents ?? row.amount_cents,
          contactEmail: row.contact_email,
          reason: row.review_reason,
          heldAt: row.updated_at,
          isTest: row.livemode !== true,
        })),
        count: total.count,
      };
    },

    /** One payment held for review, or undefined when there is none by that id (or it is no longer held). */
    async findHeldPayment(paymentIntentId: string): Promise<HeldPayment | undefined> {
      const row = await db
        .selectFrom("checkout_payments")
        .select([
          "payment_intent_id",
          "paid_amount_cents",
          "amount_cents",
          "contact_email",
          "review_reason",
          "updated_at",
          "livemode",
        ])
        .where("payment_intent_id", "=", paymentIntentId)
        .where("status", "=", "needs_review")
        .executeTakeFirst();
      return (
        row && {
          paymentIntentId: row.payment_intent_id,
          paidAmountCents: row.paid_amount_cents ?? row.amount_cents,
          contactEmail: row.contact_email,
          reason: row.review_reason,
          heldAt: row.updated_at,
          isTest: row.livemode !== true,
        }
      );
    },

    /** A held payment given back in full: it leaves "Needs attention". False when it was not held (any more). */
    async markHeldPaymentRefunded(writer: Writer, paymentIntentId: string): Promise<boolean> {
      const updated = await writer
        .updateTable("checkout_payments")
        .set({ status: "refunded", updated_at: sql`now()` })
        .where("payment_intent_id", "=", paymentIntentId)
        .where("status", "=", "needs_review")
        .executeTakeFirst();
      return updated.numUpdatedRows > 0n;
    },

    /** At sign-in: a guest's payments (those in progress too) join the account, beside its orders. */
    async adoptGuestPayments(sessionId: string, userId: string): Promise<void> {
      await db
        .updateTable("checkout_payments")
        .set({ user_id: userId, session_id: null })
        .where("session_id", "=", sessionId)
        .execute();
    },

    /**
     * At account deletion, in its transaction: paid (or held, or refunded) payments stay for the books, naming nobody,
     * as its orders do. Payments still open go with the account.
     */
    async anonymisePaymentsOf(writer: Writer, userId: string): Promise<void> {
      await writer
        .updateTable("checkout_payments")
        .set({ user_id: null, session_id: null, contact_email: null, delivery_address: erasedDeliveryAddress })
        .where("user_id", "=", userId)
        .where("status", "in", ["paid", "needs_review", "refunded"])
        .execute();
    },

    recordMissedOrders: () => recordMissedOrders(context, recordOrder),
  };
}

/**
 * At start-up: intents still open from the last days are asked about; any that succeeded while no server was
 * there to record them (a crash between charge and record) get their order now.
 */
async function recordMissedOrders(
  { db, logger, processor, livemode }: CheckoutContext,
  recordOrder: RecordOrderStep["recordOrder"],
): Promise<number> {
  let recorded = 0;
  // Every open intent, a page at a time in id order (a keyset, so rows that change status meanwhile shift nothing).
  for (let after = ""; ;) {
    const page = await db
      .selectFrom("checkout_payments")
      .select("payment_intent_id")
      .where("status", "=", "open")
      .where((where) =>
        where.or([
          where("processor", "is", null),
          where.and([where("processor", "=", processor), where("livemode", "=", livemode)]),
        ]),
      )
      .where("updated_at", ">", sql<Date>`now() - interval '7 days'`)
      .where("payment_intent_id", ">", after)
      .orderBy("payment_intent_id")
      .limit(SWEEP_PAGE_SIZE)
      .execute();
    for (const { payment_intent_id: id } of page) {
      const result = await recordOrder(id, null).catch((error: unknown) => {
        // The next start, or the intent's webhook, tries this one again; the sweep goes on with the others.
        logger.warn({ err: error, paymentIntentId: id }, "checkout: the start-up sweep could not record an order");
        return null;
      });
      if (result?.kind === "recorded" && result.isNew) recorded++;
    }
    if (page.length < SWEEP_PAGE_SIZE) break;
    after = page.at(-1)?.payment_intent_id ?? after;
  }
  if (recorded > 0) logger.warn({ recorded }, "checkout: recorded orders for payments that had none");
  return recorded;
}
