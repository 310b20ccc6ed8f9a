// The payment routes' requests (create with the page's total, record the order, the return page's query) and what the
// payment page is told.

import { z } from "zod";

/** POST /payments/create?total={cents}: the page's idea of the total, which the server checks against its own. */
export const createPaymentQuerySchema = z.strictObject({
  total: z
    .string({ error: "total is required" })
    .regex(/^\d{1,9}$/, "total must be a whole number of cents")
    .transform(Number),
});

/** POST /orders/record: the browser says which intent it confirmed; the server checks it with the processor. */
export const recordOrderSchema = z.strictObject({
  paymentIntentId: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "paymentIntentId must be a payment intent id"),
});

/**
 * GET /payment/return: where Stripe sends a shopper back after a method that left the page, with the intent's id
 * (and its client secret and a redirect status, which the server does not trust: it asks the processor).
 */
export const paymentReturnQuerySchema = z.strictObject({
  payment_intent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "payment_intent must be a payment intent id"),
  payment_intent_client_secret: z.string().max(200).optional(),
  redirect_status: z.string().max(40).optional(),
});

/** What the payment page needs to know about the processor; the publishable key is the only key a browser sees. */
export interface PaymentClientConfig {
  mode: "built-in" | "stripe";
  publishableKey: string;
  /** Built-in mode: the processor's base URL for the browser ("/_processor" on the shop, or its own origin). */
  processorUrl: string;
}

/** What a shopper reads when the payment is accepted but not yet final (e.g. a bank debit): not a failure. */
export const PAYMENT_PROCESSING_MESSAGE =
  "Your payment is processing; we will e-mail you when it is complete, and your order will then appear under Orders.";
