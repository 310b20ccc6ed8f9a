// Step 5 of checkout, the undo of the hold: what a cancelled, replaced or mismatched payment held goes back for others.

import { sql } from "kysely";
import type { CheckoutContext } from "./checkout-context";

/**
 * Step 5 of checkout, release: the undo of the hold (and of an intent that can no longer be used). What a payment
 * held goes back for others when its intent is cancelled, replaced, or paid for something else than its row says;
 * releasing twice, or a key that holds nothing, does nothing. A paid order is never released: its hold was settled.
 */
export function createReleaseStep({ db, provider, logger, holds }: CheckoutContext) {
  /** Gives back everything `key` held; `actor` names who let go in the stock's ledger ("shop", "processor"). */
  async function releaseHold(key: string, actor = "shop"): Promise<void> {
    await holds.release(key, actor);
  }

  /**
   * An open intent the processor no longer lets change (being authenticated, or already paid): left to its fate and
   * its row marked replaced. The new payment takes its hold over in one step (the hold's `replaces`).
   */
  async function replaceIntent(paymentIntentId: string): Promise<void> {
    await provider.cancelIntent(paymentIntentId).catch((error: unknown) => {
      // A paid one cannot be cancelled: the sweep and the webhook make it an order. Anything else is left to expire.
      logger.warn({ err: error, paymentIntentId }, "checkout: a replaced intent was not cancelled");
    });
    await db
      .updateTable("checkout_payments")
      .set({ status: "replaced", revision: sql`revision + 1`, updated_at: sql`now()` })
      .where("payment_intent_id", "=", paymentIntentId)
      .where("status", "=", "open")
      .execute();
  }

  /**
   * The processor says the intent was cancelled (payment_intent.canceled): it can never be paid, so everything it
   * held (stock, its promotion code's use) is released now (and any variant that brings back in stock sends its
   * alerts), not at their expiry.
   */
  async function releaseCancelledPayment(paymentIntentId: string): Promise<void> {
    const payment = await db
      .selectFrom("checkout_payments")
      .select("status")
      .where("payment_intent_id", "=", paymentIntentId)
      .executeTakeFirst();
    // The shop's own cancel of an intent it replaced: the new payment takes the hold over in one step (replaces).
    if (payment?.status === "replaced") return;
    await releaseHold(paymentIntentId, "processor");
  }

  return { releaseHold, replaceIntent, releaseCancelledPayment };
}

export type ReleaseStep = ReturnType<typeof createReleaseStep>;
