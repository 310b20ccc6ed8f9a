// The payment return page's step (/payment/return): record the order of a payment that left the page, or say in one
// sentence what became of it.

import { AppError } from "#shared/errors";
import { PAYMENT_PROCESSING_MESSAGE } from "#shared/payments";
import { formatCents } from "#shared/money";
import type { BasketOwner } from "#server/basket/basket-owner";
import type { CheckoutService } from "./checkout-service";
import type { PaymentRateLimits } from "./payment-rate-limits";

/** What the return page shows: the order (the page redirects to it), or one sentence of what became of the payment. */
export type PaymentReturnOutcome =
  | { kind: "paid"; orderId: string; orderNumber: string }
  | { kind: "processing"; message: string }
  | { kind: "failed"; message: string }
  | { kind: "not-found"; message: string };

/**
 * The end of a payment that left the page (a method that redirects, confirmed by Stripe.js with
 * `redirect: "if_required"`): Stripe sends the shopper back with the intent's id, and the order is recorded here the
 * same exactly-once way as from the page, the webhook and the start-up sweep (checkout.recordOrder). Reached twice,
 * it finds the order already there; reached by another shopper, it finds nothing.
 */
export function createPaymentReturn(checkout: CheckoutService, limits: PaymentRateLimits) {
  return {
    async finish(input: {
      paymentIntentId: string;
      owner: BasketOwner | null;
      sessionId: string | null;
      ip: string;
    }): Promise<PaymentReturnOutcome> {
      await limits.check("record", input.sessionId, input.ip);
      const notFound = {
        kind: "not-found",
        message: "We could not find that payment. If you paid, your order will appear under Orders shortly.",
      } as const;
      if (!input.owner) return notFound;
      try {
        const result = await checkout.recordOrder(input.paymentIntentId, input.owner);
        if (!result) return notFound;
        if (result.kind === "processing") return { kind: "processing", message: PAYMENT_PROCESSING_MESSAGE };
        if (result.kind === "needs-review") {
          return {
            kind: "failed",
            message: `Your payment of ${formatCents(result.paidAmountCents)} went through, but it does not match your basket, so no order was placed. We will refund it in full; your basket is unchanged.`,
          };
        }
        return { kind: "paid", orderId: result.orderId, orderNumber: result.orderNumber };
      } catch (error) {
        if (error instanceof AppError && error.code === "PAYMENT_NOT_COMPLETE") {
          return {
            kind: "failed",
            message:
              "Your payment did not go through, so no order was placed. Your basket is unchanged; please try again or use another card.",
          };
        }
        throw error;
      }
    },
  };
}

export type PaymentReturn = ReturnType<typeof createPaymentReturn>;
