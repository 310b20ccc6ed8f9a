import type { CardDetails } from "../card-field/card-validation.ts";

export type { CardDetails };

/**
 * Talking to the processor from the browser, as Stripe.js talks to Stripe: the card goes to the processor, never to
 * the shop's own routes.
 */

export type ConfirmOutcome =
  | { status: "succeeded"; paymentIntentId: string }
  /** The bank wants the shopper to authenticate (3-D Secure) before it decides. */
  | { status: "requires_action"; paymentIntentId: string }
  | { status: "failed"; message: string };

const PROCESSOR_UNREACHABLE = "We couldn't reach the payment service. Nothing was charged; please try again.";

/** "pi_123_secret_abc" → "pi_123" */
export function intentIdOf(clientSecret: string): string {
  return clientSecret.split("_secret_")[0] ?? "";
}

/** Stripe's form encoding, as Stripe.js sends it: nested keys in brackets. */
function encode(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

async function call(
  baseUrl: string,
  path: string,
  publishableKey: string,
  fields: Record<string, string>,
): Promise<ConfirmOutcome> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/v1/payment_intents/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: encode(fields),
    });
  } catch {
    return { status: "failed", message: PROCESSOR_UNREACHABLE };
  }
  const body = (await response.json().catch(() => null)) as {
    id?: string;
    status?: string;
    error?: { message?: string };
  } | null;
  if (!response.ok || !body) return { status: "failed", message: body?.error?.message ?? PROCESSOR_UNREACHABLE };
  if (body.status === "succeeded" && body.id) return { status: "succeeded", paymentIntentId: body.id };
  if (body.status === "requires_action" && body.id) return { status: "requires_action", paymentIntentId: body.id };
  return { status: "failed", message: "Your payment could not be completed. Please try again." };
}

/**
 * The processor at `baseUrl` (where it is mounted, "/_processor" on the page's own origin, or its own origin when it
 * runs alone): the card goes straight to it, never to the shop's own routes.
 */
export const builtInProcessor = {
  confirmCardPayment(
    baseUrl: string,
    clientSecret: string,
    publishableKey: string,
    card: CardDetails,
  ): Promise<ConfirmOutcome> {
    return call(baseUrl, `${intentIdOf(clientSecret)}/confirm`, publishableKey, {
      client_secret: clientSecret,
      // As Stripe.js's confirmCardPayment: the page handles 3-D Secure itself, so Stripe asks for no return_url.
      use_stripe_sdk: "true",
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card.number,
      "payment_method_data[card][exp_month]": String(card.expMonth),
      "payment_method_data[card][exp_year]": String(card.expYear),
      "payment_method_data[card][cvc]": card.cvc,
      "payment_method_data[billing_details][address][postal_code]": card.postalCode,
    });
  },

  /** The shopper's answer to the authentication challenge. */
  authenticate(
    baseUrl: string,
    clientSecret: string,
    publishableKey: string,
    outcome: "complete" | "fail",
  ): Promise<ConfirmOutcome> {
    return call(baseUrl, `${intentIdOf(clientSecret)}/authenticate`, publishableKey, {
      client_secret: clientSecret,
      outcome,
    });
  },
};
