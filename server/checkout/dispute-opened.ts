import type { Logger } from "../logger";
import type { ProviderDispute } from "../payments/payment-provider";

/**
 * The one place a cardholder's dispute reaches the shop (`charge.dispute.created`, signed and deduplicated by the
 * webhook handler). For now it is logged for the operator, with what Stripe says about it; marking the order
 * Disputed belongs to the order model and is to be called from here.
 */
export async function disputeOpened(dispute: ProviderDispute, logger: Logger): Promise<void> {
  logger.warn(
    { disputeId: dispute.id, paymentIntentId: dispute.paymentIntentId, chargeId: dispute.chargeId, amountCents: dispute.amountCents, reason: dispute.reason, status: dispute.status },
    "webhook: a payment was disputed",
  );
}
