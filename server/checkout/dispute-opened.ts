// A cardholder's dispute (charge.dispute.created) made the order's: Disputed, with the amount and the processor's
// reason, whatever order the events arrive in.

import type { Logger } from "#server/logger";
import type { OrderService } from "#server/orders/order-service";
import type { ProviderDispute } from "#server/payments/payment-provider";
import { AppError } from "#shared/errors";
import type { CheckoutService } from "./checkout-service";

/**
 * The one place a cardholder's dispute reaches the shop (`charge.dispute.created`, signed and deduplicated by the
 * webhook handler): the order it is about becomes Disputed for the operator, with the amount and Stripe's reason.
 * Events arrive in any order, so a dispute may come before the payment's own succeeded event: the order is recorded
 * first (the same exactly-once step as every other path; a disputed charge is a succeeded one).
 * A dispute on an order that cannot be disputed (refunded in full, disputed already: a repeated delivery) or on a
 * payment the shop has no order for is logged and acknowledged; asking the processor again would change nothing.
 */
export async function disputeOpened(
  dispute: ProviderDispute,
  { checkout, orders }: { checkout: CheckoutService; orders: OrderService },
  logger: Logger,
): Promise<void> {
  const facts = {
    disputeId: dispute.id,
    paymentIntentId: dispute.paymentIntentId,
    chargeId: dispute.chargeId,
    amountCents: dispute.amountCents,
    reason: dispute.reason,
    status: dispute.status,
  };
  logger.warn(facts, "webhook: a payment was disputed");
  if (!dispute.paymentIntentId) return;
  try {
    const recorded = await checkout.recordOrder(dispute.paymentIntentId, null);
    if (recorded?.kind !== "recorded") {
      logger.warn(
        { ...facts, outcome: recorded?.kind ?? "not the shop's payment" },
        "webhook: no order to mark as disputed",
      );
      return;
    }
    await orders.recordDispute(
      dispute.paymentIntentId,
      { amountCents: dispute.amountCents, reason: `${dispute.reason} (${dispute.id})` },
      "processor",
    );
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    logger.warn({ ...facts, refusal: error.message }, "webhook: the dispute left the order as it was");
  }
}
