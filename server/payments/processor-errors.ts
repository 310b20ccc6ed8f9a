/**
 * Every error the processor (Stripe or the built-in one, both through the SDK) can answer the shop with, turned
 * into a sentence of ours for the shopper, and logged for the operator with Stripe's own names: type, code,
 * decline code, request id and status. Never the message's parameter values, and never a card: the SDK's errors
 * carry none of the card's digits in these fields.
 */

import Stripe from "stripe";
import { AppError } from "#shared/errors";
import type { Logger } from "#server/logger";

/** The sentences a shopper reads. "Nothing was charged" only where that is certain: the server never charges a card. */
export const PROCESSOR_ERROR_SENTENCES = {
  unreachable: "We couldn't reach the payment service. Nothing was charged; please try again in a moment.",
  misconfigured:
    "Payments are not available at the moment: the shop's payment settings need attention. Nothing was charged; please try again later.",
  busy: "The payment service is busy. Nothing was charged; please try again in a minute.",
  processorFault: "The payment service had a problem. Nothing was charged; please try again in a moment.",
  amountTooSmall: "Card payments must be at least $0.50. Please add to your basket and pay again.",
  amountTooLarge: "This basket is over the most a single card payment may be. Please split your order.",
  inProgress: "Your payment is already being set up in another window. Please try again in a moment.",
  changed: "Your payment changed while we were checking it. Please reload the page and pay again.",
  notFound: "We could not find that payment. Nothing was charged; please pay again.",
  declined: "Your card was declined. Please try another card.",
  insufficientFunds: "Your card has insufficient funds. Please try another card.",
  expired: "Your card has expired. Please try another card.",
  incorrectCvc: "Your card's security code is incorrect.",
  cardProcessing: "An error occurred while processing your card. Please try again in a little bit.",
  authentication: "We could not confirm the payment with your bank. Please try again or use another card.",
  refused:
    "We couldn't set up your payment. Nothing was charged; please try again, and contact us if it keeps happening.",
} as const;

/** What the operator's log line says about a processor error. */
export interface ProcessorErrorFacts {
  type: string;
  code?: string;
  declineCode?: string;
  param?: string;
  requestId?: string;
  statusCode?: number;
}

export function processorErrorFacts(error: unknown): ProcessorErrorFacts {
  if (!(error instanceof Stripe.errors.StripeError)) return { type: error instanceof Error ? error.name : "unknown" };
  return {
    // Stripe's own name for the kind of error (card_error, invalid_request_error…), else the SDK's class name.
    type: error.rawType ?? error.type,
    ...(error.code ? { code: error.code } : {}),
    ...(error.decline_code ? { declineCode: error.decline_code } : {}),
    ...(error.param ? { param: error.param } : {}),
    ...(error.requestId ? { requestId: error.requestId } : {}),
    ...(error.statusCode ? { statusCode: error.statusCode } : {}),
  };
}

const DECLINE_SENTENCES: Record<string, string> = {
  insufficient_funds: PROCESSOR_ERROR_SENTENCES.insufficientFunds,
};

const CARD_CODE_SENTENCES: Record<string, string> = {
  expired_card: PROCESSOR_ERROR_SENTENCES.expired,
  incorrect_cvc: PROCESSOR_ERROR_SENTENCES.incorrectCvc,
  invalid_cvc: PROCESSOR_ERROR_SENTENCES.incorrectCvc,
  processing_error: PROCESSOR_ERROR_SENTENCES.cardProcessing,
  payment_intent_authentication_failure: PROCESSOR_ERROR_SENTENCES.authentication,
};

/** The shop's error for a processor error: a sentence and a code a caller can act on. */
export function toShopperError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const options = { cause: error };
  if (!(error instanceof Stripe.errors.StripeError))
    return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.unreachable, options);
  if (error instanceof Stripe.errors.StripeConnectionError)
    return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.unreachable, options);
  if (
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  ) {
    return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.misconfigured, options);
  }
  if (error instanceof Stripe.errors.StripeRateLimitError)
    return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.busy, {
      ...options,
      retryAfterSeconds: 60,
    });
  if (error instanceof Stripe.errors.StripeIdempotencyError)
    return new AppError("TOTAL_MISMATCH", PROCESSOR_ERROR_SENTENCES.inProgress, options);
  if (error instanceof Stripe.errors.StripeCardError) {
    const sentence =
      (error.decline_code && DECLINE_SENTENCES[error.decline_code]) ||
      (error.code && CARD_CODE_SENTENCES[error.code]) ||
      PROCESSOR_ERROR_SENTENCES.declined;
    return new AppError("PAYMENT_NOT_COMPLETE", sentence, options);
  }
  if (error instanceof Stripe.errors.StripeAPIError)
    return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.processorFault, options);
  switch (error.code) {
    case "amount_too_small":
      return new AppError("BAD_REQUEST", PROCESSOR_ERROR_SENTENCES.amountTooSmall, options);
    case "amount_too_large":
      return new AppError("BAD_REQUEST", PROCESSOR_ERROR_SENTENCES.amountTooLarge, options);
    case "idempotency_key_in_use":
      return new AppError("TOTAL_MISMATCH", PROCESSOR_ERROR_SENTENCES.inProgress, options);
    case "payment_intent_unexpected_state":
      return new AppError("PAYMENT_NOT_COMPLETE", PROCESSOR_ERROR_SENTENCES.changed, options);
    case "resource_missing":
      return new AppError("NOT_FOUND", PROCESSOR_ERROR_SENTENCES.notFound, options);
    case "api_key_expired":
    case "secret_key_required":
      return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.misconfigured, options);
    case "payment_intent_authentication_failure":
      return new AppError("PAYMENT_NOT_COMPLETE", PROCESSOR_ERROR_SENTENCES.authentication, options);
    default:
      return new AppError("PAYMENT_PROVIDER_ERROR", PROCESSOR_ERROR_SENTENCES.refused, options);
  }
}

/**
 * Whether the processor refused to change an intent because of the intent's own state (being authenticated, paid,
 * cancelled) or because it no longer exists: the one case in which the shop gives up on an intent and makes another.
 * A timeout or a fault of the processor's is not such a refusal.
 */
export function isIntentStateRefusal(error: unknown): boolean {
  const cause = error instanceof AppError ? error.cause : error;
  return (
    cause instanceof Stripe.errors.StripeInvalidRequestError &&
    (cause.code === "payment_intent_unexpected_state" || cause.code === "resource_missing")
  );
}

/** Logs a processor error for the operator (a wrong key is an error; a decline or a busy processor a warning). */
export function logProcessorError(logger: Logger | undefined, operation: string, error: unknown): void {
  if (!logger) return;
  const facts = processorErrorFacts(error);
  const expected =
    error instanceof Stripe.errors.StripeCardError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    facts.code === "payment_intent_unexpected_state";
  logger[expected ? "warn" : "error"](
    { operation, processorError: facts },
    `payments: processor error (${facts.type}${facts.code ? `/${facts.code}` : ""})`,
  );
}
