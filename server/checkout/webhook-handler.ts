// The processor's webhooks: each event verified, handled once (processed_webhook_events, or the order's own key for a
// succeeded payment), and routed to the order, refund or dispute it is about.

import type { DB } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import type { Logger } from "#server/logger";
import type { OrderService } from "#server/orders/order-service";
import type { PaymentProvider, ProviderRefund } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import { SHOP_METADATA_KEY, type CheckoutService } from "./checkout-service";
import { disputeOpened } from "./dispute-opened";

export type WebhookOutcome =
  | "recorded"
  | "needs-review"
  | "already-processed"
  | "ignored"
  | "noted"
  | "processing"
  | "disputed"
  | "refunded"
  | "released";

/** Where refund events go: the console's refunds, which record each processor refund once. */
export interface RefundRecorder {
  recordProcessorRefund(refund: ProviderRefund): Promise<"recorded" | "already-recorded" | "not-ours">;
  reconcileRefunds(paymentIntentId: string): Promise<number>;
}

/**
 * The processor's events, turned into the shop's few actions: a succeeded payment records its order (the same
 * idempotent step the browser's call takes), a cancelled one gives back the stock it held, a failed one is only
 * logged. Events for intents the shop did not create are acknowledged and ignored; an event id seen before is
 * acknowledged without acting again (a succeeded payment's finds its order written, and changes nothing).
 */
export function createWebhookHandler(
  db: DB,
  provider: PaymentProvider,
  checkout: CheckoutService,
  orders: OrderService,
  logger: Logger,
  refunds?: RefundRecorder,
) {
  // The other events' ids, read and written on every delivery: built and compiled once.
  const findProcessed = preparedStatement(db, ["id"], (db, values: { id: string }) =>
    db.selectFrom("processed_webhook_events").select("id").where("id", "=", values.id),
  );
  const markProcessed = preparedStatement(db, ["id", "type"], (db, values: { id: string; type: string }) =>
    db
      .insertInto("processed_webhook_events")
      .values({ id: values.id, type: values.type })
      .onConflict((conflict) => conflict.column("id").doNothing()),
  );
  return {
    async handleWebhook(rawBody: string, signature: string): Promise<WebhookOutcome> {
      let event;
      try {
        event = provider.parseWebhook(rawBody, signature);
      } catch (error) {
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, "webhook: signature check failed");
        throw new AppError("BAD_REQUEST", "The webhook signature is not valid.");
      }
      if (!event.id) return "ignored";
      // A succeeded payment's order is written once under its own key, the intent's id, whoever asks and however
      // often (recordOrder): its event needs no note of having been seen. That spares every checkout two statements.
      const isOnceByItself = event.kind === "payment-succeeded";
      if (!isOnceByItself && (await findProcessed({ id: event.id })).rows.length > 0) return "already-processed";

      let outcome: WebhookOutcome = "ignored";
      if (event.kind === "refund-updated" && refunds) {
        // The same function the console's call uses: whichever arrives first records the refund, the other finds it.
        outcome = (await refunds.recordProcessorRefund(event.refund)) === "recorded" ? "refunded" : "ignored";
      } else if (event.kind === "charge-refunded" && refunds) {
        // A charge event names no refund: ask the processor for the intent's refunds and record any not yet known.
        outcome = (await refunds.reconcileRefunds(event.paymentIntentId)) > 0 ? "refunded" : "ignored";
      } else if (event.kind === "refund-updated" || event.kind === "charge-refunded") {
        outcome = "ignored";
      } else if (event.kind === "dispute-created") {
        await disputeOpened(event.dispute, { checkout, orders }, logger);
        outcome = "disputed";
      } else if (event.kind === "payment-processing" && event.intent.metadata[SHOP_METADATA_KEY]) {
        // Not a failure and not yet paid: the order is recorded by payment_intent.succeeded when the bank decides.
        logger.info({ paymentIntentId: event.intent.id }, "webhook: payment processing");
        outcome = "processing";
      } else if (
        event.kind !== "ignored" &&
        event.kind !== "payment-processing" &&
        event.intent.metadata[SHOP_METADATA_KEY]
      ) {
        if (event.kind === "payment-canceled") {
          // Never to be paid: what it held goes back for others at once, not when its reservation would expire.
          await checkout.releaseCancelledPayment(event.intent.id);
          logger.info({ paymentIntentId: event.intent.id }, "webhook: payment cancelled, its stock released");
          outcome = "released";
        } else if (event.kind === "payment-succeeded") {
          // The signed event says the intent succeeded, which is final: its amount is what was paid, checked against
          // the snapshot as for the browser's call. A failure to record throws, and the 5xx makes the processor
          // deliver again later.
          const recorded = await checkout.recordOrder(event.intent.id, null, event.intent);
          outcome = recorded ? (recorded.kind === "recorded" ? "recorded" : "needs-review") : "ignored";
        } else {
          logger.info({ paymentIntentId: event.intent.id }, "webhook: payment failed");
          outcome = "noted";
        }
      }
      if (!isOnceByItself)
        await markProcessed({ id: event.id, type: event.kind === "ignored" ? event.type : event.kind });
      return outcome;
    },
  };
}
