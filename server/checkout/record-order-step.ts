// Step 4 of checkout: the order written exactly once, in one transaction with the hold settled, the payment marked paid
// and the basket emptied of what was paid.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { readOrderItem } from "#shared/orders";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { OrderProcessor } from "#server/db/schema";
import { newOrderNumber } from "#server/orders/order-number";
import type { ProviderIntent } from "#server/payments/payment-provider";
import {
  FINGERPRINT_METADATA_KEY,
  type CheckoutContext,
  type PaymentToRecord,
  type RecordOutcome,
} from "./checkout-context";
import type { ReleaseStep } from "./release-step";

/** Order numbers drawn before giving up: a clash is one in hundreds of thousands, three in a row never happens. */
const ORDER_NUMBER_DRAWS = 5;

/** Recorded payments an instance keeps in mind (a few hundred bytes each): far more than are paid in a minute. */
const REMEMBERED_PAYMENTS = 1_000;

/** What a recorded payment's later calls need: whose it is, and its order's number. */
interface RecordedPayment {
  user_id: string | null;
  session_id: string | null;
  status: "paid";
  order_number: string;
}
const recordedAs = (
  { user_id, session_id }: { user_id: string | null; session_id: string | null },
  orderNumber: string,
): RecordedPayment => ({ user_id, session_id, status: "paid", order_number: orderNumber });

/** An order to write: a succeeded intent's (its id, amount, card), or a $0.00 order's (`strict`: nothing was paid). */
export interface OrderToWrite {
  id: string;
  amountCents: number;
  currency?: string;
  created: Date;
  card: { brand: string; last4: string } | null;
  payment: PaymentToRecord;
  strict?: boolean;
}

/** Why a succeeded intent cannot become the row's order, or null when amount and fingerprint are the snapshot's. */
function describeMismatch(
  intent: ProviderIntent,
  payment: { amount_cents: number; basket_fingerprint: string },
): string | null {
  if (intent.amountCents !== payment.amount_cents)
    return `paid ${intent.amountCents} cents for a basket priced at ${payment.amount_cents}`;
  const paidFingerprint = intent.metadata[FINGERPRINT_METADATA_KEY];
  // Intents created before fingerprints travelled in their metadata carry none; their amount is all there is to check.
  if (paidFingerprint !== undefined && paidFingerprint !== payment.basket_fingerprint)
    return "paid for a different basket than the one recorded";
  return null;
}

/** Keeps a paid but mismatched payment for the operator, once; the basket is left as it is. */
async function holdForReview(
  { db, logger }: CheckoutContext,
  release: ReleaseStep,
  intent: ProviderIntent,
  reason: string,
): Promise<RecordOutcome> {
  const held = await db
    .updateTable("checkout_payments")
    .set({
      status: "needs_review",
      paid_amount_cents: intent.amountCents,
      review_reason: reason,
      updated_at: sql`now()`,
    })
    .where("payment_intent_id", "=", intent.id)
    .where("status", "in", ["open", "replaced"])
    .executeTakeFirst();
  const isNew = held.numUpdatedRows > 0n;
  // Never fulfilled: what it held goes back for others.
  if (isNew) await release.releaseHold(intent.id);
  if (isNew)
    logger.error(
      { paymentIntentId: intent.id, paidAmountCents: intent.amountCents, reason },
      "checkout: payment needs review, no order recorded",
    );
  return { kind: "needs-review", paidAmountCents: intent.amountCents, isNew };
}

/** Marks a payment paid, in its order's transaction: one per order, built and compiled once. */
function markPaidStatement(db: CheckoutContext["db"]) {
  return preparedStatement(db, ["paymentIntentId"], (db, values: { paymentIntentId: string }) =>
    db
      .updateTable("checkout_payments")
      .set({ status: sql.lit("paid"), updated_at: sql`now()` })
      .where("payment_intent_id", "=", values.paymentIntentId),
  );
}
type MarkPaid = ReturnType<typeof markPaidStatement>;

/** One try at writing the order under `number`: null when another order drew that number. */
async function writeOrderOnce(
  { db, basket, orders, holds, onOrderRecorded, processor, livemode }: CheckoutContext,
  { id, amountCents, currency, created, card, payment, strict = false }: OrderToWrite,
  number: string,
  markPaid: MarkPaid,
) {
  return db.transaction().execute(async (trx) => {
    const promotion = payment.pricing?.promotion ?? null;
    const inserted = await orders.recordPaidOrder(trx, {
      id,
      number,
      userId: payment.user_id,
      sessionId: payment.session_id,
      amountCents,
      currency: currency ?? payment.currency,
      items: payment.items,
      pricing: payment.pricing,
      processor: (payment.processor as OrderProcessor | null) ?? processor,
      livemode: payment.livemode ?? livemode,
      createdAt: created,
      deliveryAddress: payment.delivery_address,
      contactEmail: payment.contact_email,
      card: card ?? null,
      promotion: promotion ? { code: promotion.code, kind: promotion.kind } : null,
      discountCents: payment.pricing?.discountCents ?? 0,
    });
    if (!inserted) {
      // Either key: the order exists already (recorded by another path), or the number is taken (draw again).
      const existing = await trx.selectFrom("orders").select("number").where("id", "=", id).executeTakeFirst();
      return existing ? { orderId: id, orderNumber: existing.number, isNew: false } : null;
    }
    const owner: BasketOwner | null = payment.user_id
      ? { userId: payment.user_id }
      : payment.session_id
        ? { sessionId: payment.session_id }
        : null;
    // A snapshot taken before lines had quantities lists one entry per item: each means one.
    const items = payment.items.map(readOrderItem);
    // The payment's hold becomes the order's, in this transaction: once, whichever of page, webhook and sweep gets
    // here. What could not be settled in full is flagged on the order (a $0.00 order is refused instead).
    const flags = await holds.settle(trx, {
      hold: id,
      orderId: id,
      items,
      pricing: payment.pricing,
      customer: owner ? { owner, email: payment.contact_email } : null,
      strict,
    });
    for (const flag of flags) await orders.flagPaidOrder(trx, id, flag);
    await markPaid({ paymentIntentId: id }, trx);
    if (owner) await basket.removePaidItems(owner, items, trx);
    await onOrderRecorded?.(trx, id, payment.items);
    return { orderId: id, orderNumber: inserted.orderNumber, isNew: true };
  });
}

/**
 * Step 4 of checkout, record order: the server asks the processor whether the intent succeeded, then writes the order
 * once, keyed by the intent id, settles the payment's hold (its stock sold, its code's use redeemed) and takes the
 * paid items out of the basket, all in one transaction. The browser's call, the webhook and the start-up sweep all
 * end here; whichever comes first wins. A recorded order is undone only by a refund (server/admin); a payment paid
 * for something else than its row goes to review, and its hold to the release step.
 */
export function createRecordOrderStep(context: CheckoutContext, release: ReleaseStep) {
  const { db, provider, processor, livemode } = context;
  const markPaid = markPaidStatement(db);
  /** A payment's row with its order's number, if it has one: read by the page's call and by the webhook's. */
  const readPayment = preparedStatement(db, ["paymentIntentId"], (db, values: { paymentIntentId: string }) =>
    db
      .selectFrom("checkout_payments")
      .leftJoin("orders", "orders.id", "checkout_payments.payment_intent_id")
      .selectAll("checkout_payments")
      .select("orders.number as order_number")
      .where("checkout_payments.payment_intent_id", "=", values.paymentIntentId),
  );
  // Which processor (and mode) this shop runs on: an intent another one made is never reused or handed out.
  const isOtherProcessors = (payment: { processor: string | null; livemode: boolean | null }) =>
    payment.processor !== null && (payment.processor !== processor || payment.livemode !== livemode);

  /**
   * One transaction: the order (unique by intent id, and by its number) and its first status, which the orders
   * module writes; the hold settled; the payment marked paid, the paid quantities out of the basket. A clash on the
   * number (another order drew it) draws again.
   */
  async function writeOrder(order: OrderToWrite): Promise<{ orderId: string; orderNumber: string; isNew: boolean }> {
    for (let draw = 1; ; draw++) {
      const written = await writeOrderOnce(context, order, newOrderNumber(new Date()), markPaid);
      if (written) return written;
      if (draw === ORDER_NUMBER_DRAWS) throw new Error("checkout: no free order number after several draws");
    }
  }

  /**
   * Records the order for a succeeded intent, exactly once. `owner` is given when a browser asks (it must be the
   * payer); the webhook and the start-up sweep pass none. The webhook also passes the intent its signed
   * payment_intent.succeeded event carried, which then need not be asked for again. Returns null for an intent
   * the shop did not create (or another shopper's).
   *
   * An order is written only when the processor's amount and basket fingerprint are the snapshot's: otherwise the
   * shopper paid for something other than the items the row lists, and the payment is kept as needs_review
   * (never fulfilled; the operator refunds it) instead of becoming an order that lists more, or less, than was paid.
   */
  async function recordOrder(
    paymentIntentId: string,
    owner: BasketOwner | null,
    succeededIntent?: ProviderIntent,
  ): Promise<RecordOutcome | null> {
    return inTurn(paymentIntentId, () => recordOrderNow(paymentIntentId, owner, succeededIntent));
  }

  /**
   * The calls for one payment in this instance, one after another: the page's and the webhook's usually come at once,
   * and each would ask the processor and try to write the order; in turn, the second finds the order written and
   * asks nothing. Each call still decides on what it reads itself (the database keeps it exactly once across
   * instances); waiting only spares the work.
   */
  const running = new Map<string, Promise<unknown>>();
  function inTurn<T>(key: string, run: () => Promise<T>): Promise<T> {
    const before = running.get(key);
    const mine = before ? before.then(run) : run();
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    running.set(key, settled);
    void settled.then(() => {
      if (running.get(key) === settled) running.delete(key);
    });
    return mine;
  }

  /**
   * Payments this instance has seen recorded, newest last: an order once written stays written, so the page's call
   * that follows the webhook's (or the other way round) is answered without reading the payment again.
   */
  const recorded = new Map<string, RecordedPayment>();
  function remember(paymentIntentId: string, payment: RecordedPayment) {
    recorded.delete(paymentIntentId);
    recorded.set(paymentIntentId, payment);
    if (recorded.size > REMEMBERED_PAYMENTS) recorded.delete(recorded.keys().next().value!);
  }

  async function recordOrderNow(
    paymentIntentId: string,
    owner: BasketOwner | null,
    succeededIntent?: ProviderIntent,
  ): Promise<RecordOutcome | null> {
    const isOwners = (payment: { user_id: string | null; session_id: string | null }) => {
      if (!owner) return true;
      const { column, value } = ownerColumn(owner);
      return payment[column] === value;
    };
    // A payment's owner can change after it was seen (a guest's joins the account at sign-in): a call from someone
    // else than the one remembered reads the payment.
    const remembered = recorded.get(paymentIntentId);
    const known = remembered && isOwners(remembered) ? remembered : undefined;
    // With the order's number, if there is an order: a payment already recorded then needs nothing more.
    const payment = known ?? (await readPayment({ paymentIntentId })).rows[0];
    if (!payment || !isOwners(payment)) return null;
    // Marked paid in the same transaction that wrote the order (usually by the webhook, before the page asks):
    // nothing left to check with the processor.
    if (payment.status === "paid") {
      const orderNumber = payment.order_number ?? "";
      if (!known) remember(paymentIntentId, recordedAs(payment, orderNumber));
      return { kind: "recorded", orderId: paymentIntentId, orderNumber, isNew: false };
    }
    // Held for review (and perhaps refunded since): never an order.
    if (payment.status === "needs_review" || payment.status === "refunded")
      return { kind: "needs-review", paidAmountCents: payment.paid_amount_cents ?? 0, isNew: false };
    // Made by the processor the shop used before a switch: this one does not know it, and must not be asked.
    if (isOtherProcessors(payment)) return null;
    const intent =
      succeededIntent?.id === paymentIntentId && succeededIntent.status === "succeeded"
        ? succeededIntent
        : await provider.retrieveIntent(paymentIntentId);
    // Not a failure: the bank decides later, and payment_intent.succeeded then records the order.
    if (intent.status === "processing") return { kind: "processing" };
    if (intent.status !== "succeeded") {
      throw new AppError(
        "PAYMENT_NOT_COMPLETE",
        "Your payment has not gone through, so no order was placed. Your basket is unchanged.",
      );
    }
    const mismatch = describeMismatch(intent, payment);
    if (mismatch) return holdForReview(context, release, intent, mismatch);
    // An event's intent names its PaymentMethod by id only: ask for the card's brand and last four. Without an
    // answer the order is still recorded, just without them.
    const card =
      intent.card ??
      (await provider.retrieveIntent(paymentIntentId).then(
        (retrieved) => retrieved.card,
        () => null,
      ));
    const written = await writeOrder({
      id: intent.id,
      // The order's total: with balances (store credit, gift cards) paying part, more than the card paid (the
      // card's part was checked against the row above).
      amountCents: payment.pricing?.balances?.length ? payment.pricing.totalCents : intent.amountCents,
      currency: intent.currency,
      created: intent.created,
      card,
      payment,
    });
    remember(paymentIntentId, recordedAs(payment, written.orderNumber));
    return { kind: "recorded", ...written };
  }

  return { recordOrder, writeOrder };
}

export type RecordOrderStep = ReturnType<typeof createRecordOrderStep>;
