// The console's Refund of a payment held for review (paid, but without an order): everything paid goes back once, and
// the shopper is told.

import type { CheckoutService } from "#server/checkout/checkout-service";
import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { Logger } from "#server/logger";
import type { PaymentProvider } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { NO_LONGER_HELD } from "#shared/admin-order-schemas";
import { recordAudit, type Actor } from "#server/audit/audit-log";

/**
 * The console's Refund of a payment held for review (paid, but not for the basket recorded: no order). Everything
 * that was paid goes back, once: the processor's idempotency key is the payment's own, so a second form, a second
 * operator or a retry after a timeout gets the same refund. Then the payment leaves "Needs attention", with an audit
 * entry and the shopper's e-mail saying so, in one transaction.
 */
export function createHeldPaymentRefunds(
  db: DB,
  checkout: CheckoutService,
  provider: PaymentProvider,
  email: Pick<EmailOutbox, "enqueueHeldPaymentRefunded">,
  logger: Logger,
) {
  return {
    async refund(actor: Actor, paymentIntentId: string): Promise<{ amountCents: number; isPending: boolean }> {
      const payment = await checkout.findHeldPayment(paymentIntentId);
      if (!payment) throw new AppError("NOT_FOUND", NO_LONGER_HELD);
      const made = await provider
        .createRefund({
          paymentIntentId,
          amountCents: payment.paidAmountCents,
          idempotencyKey: `held-payment-refund-${paymentIntentId}`,
          metadata: { shop_operator_email: actor.email, shop_operator_id: actor.id ?? "" },
        })
        .catch((error: unknown) => {
          // The provider's sentences speak to a paying shopper; an operator refunding needs to know what to do.
          if (!(error instanceof AppError)) throw error;
          throw new AppError(
            error.code,
            "The payment service did not confirm the refund. Send the form again: it refunds at most once.",
            { cause: error },
          );
        });
      if (made.status !== "succeeded") {
        logger.info(
          { refundId: made.id, status: made.status, paymentIntentId },
          "console: refund of a held payment not yet succeeded",
        );
        return { amountCents: made.amountCents, isPending: true };
      }
      await db.transaction().execute(async (trx) => {
        if (!(await checkout.markHeldPaymentRefunded(trx, paymentIntentId))) return;
        await recordAudit(trx, actor, {
          action: "payment.refund",
          subject: paymentIntentId,
          before: { status: "needs_review" },
          after: { status: "refunded", refund: made.id, amount: formatCents(made.amountCents) },
        });
        await email.enqueueHeldPaymentRefunded(trx, { paymentIntentId, amountCents: made.amountCents });
      });
      return { amountCents: made.amountCents, isPending: false };
    },
  };
}

export type HeldPaymentRefunds = ReturnType<typeof createHeldPaymentRefunds>;
