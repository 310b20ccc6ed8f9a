import type { Selectable } from "kysely";
import type { KeyKind } from "./processor-keys.ts";
import type {
  PaymentIntentStatus,
  ProcessorPaymentIntentTable,
  StoredPaymentError,
  StoredPaymentMethod,
  StoredShipping,
} from "./processor-tables.ts";

export type PaymentIntentRow = Selectable<ProcessorPaymentIntentTable>;

/** A PaymentIntent as Stripe's API returns it (the fields the shop uses; docs.stripe.com/api/payment_intents/object). */
export interface PaymentIntentObject {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_capturable: 0;
  amount_received: number;
  automatic_payment_methods: PaymentIntentRow["automatic_payment_methods"];
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: "automatic";
  client_secret: string;
  confirmation_method: "automatic";
  created: number;
  currency: string;
  description: string | null;
  last_payment_error: PaymentErrorObject | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Record<string, string>;
  next_action: NextAction | null;
  /** The pm_… id, or the PaymentMethod itself when the call asked for `expand[]=payment_method`. */
  payment_method: string | PaymentMethodObject | null;
  payment_method_types: ["card"];
  shipping: StoredShipping | null;
  receipt_email: string | null;
  status: PaymentIntentStatus;
}

/** What the publishable key sees: everything but the metadata, which is the merchant's business. */
export type PublicPaymentIntentObject = Omit<PaymentIntentObject, "metadata">;

/**
 * What the shopper must do before the bank decides: Stripe.js's own 3-D Secure (a confirm from Stripe.js, or one
 * without a return_url), or a visit to the hosted authentication page and back to the return_url (a confirm with a
 * return_url and without `use_stripe_sdk`, as from a server). The SDK types both (Stripe.PaymentIntent.NextAction).
 */
export type NextAction =
  | { type: "use_stripe_sdk"; use_stripe_sdk: { type: "three_d_secure_redirect" } }
  | { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string } };

export interface PaymentMethodObject {
  id: string;
  object: "payment_method";
  type: "card";
  card: { brand: string; last4: string };
  livemode: false;
}

export type PaymentErrorObject = Omit<StoredPaymentError, "payment_method"> & { payment_method?: PaymentMethodObject };

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function toPaymentMethodObject(stored: StoredPaymentMethod): PaymentMethodObject {
  return {
    id: stored.id,
    object: "payment_method",
    type: "card",
    card: { brand: stored.brand, last4: stored.last4 },
    livemode: false,
  };
}

export function toPaymentErrorObject(stored: StoredPaymentError): PaymentErrorObject {
  const { payment_method: paymentMethod, ...error } = stored;
  return paymentMethod ? { ...error, payment_method: toPaymentMethodObject(paymentMethod) } : error;
}

export function toPaymentIntentObject(row: PaymentIntentRow): PaymentIntentObject {
  return {
    id: row.id,
    object: "payment_intent",
    amount: row.amount,
    amount_capturable: 0,
    amount_received: row.amount_received,
    automatic_payment_methods: row.automatic_payment_methods,
    canceled_at: row.canceled_at ? unixSeconds(row.canceled_at) : null,
    cancellation_reason: row.cancellation_reason,
    capture_method: "automatic",
    client_secret: row.client_secret,
    confirmation_method: "automatic",
    created: unixSeconds(row.created_at),
    currency: row.currency,
    description: row.description,
    last_payment_error: row.last_payment_error ? toPaymentErrorObject(row.last_payment_error) : null,
    latest_charge: row.latest_charge,
    livemode: false,
    metadata: row.metadata,
    next_action: nextAction(row),
    payment_method: row.payment_method_id,
    payment_method_types: ["card"],
    shipping: row.shipping,
    receipt_email: row.receipt_email,
    status: row.status,
  };
}

function nextAction(row: PaymentIntentRow): NextAction | null {
  if (row.status !== "requires_action") return null;
  const redirect = row.pending_redirect;
  if (redirect)
    return { type: "redirect_to_url", redirect_to_url: { url: redirect.url, return_url: redirect.return_url } };
  return { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } };
}

/** `expand[]=payment_method`: the intent with its PaymentMethod in place of the id (brand and last four only). */
export function withExpandedPaymentMethod(row: PaymentIntentRow): PaymentIntentObject {
  const intent = toPaymentIntentObject(row);
  if (!row.payment_method_id) return intent;
  return {
    ...intent,
    payment_method: toPaymentMethodObject({
      id: row.payment_method_id,
      brand: row.card_brand ?? "unknown",
      last4: row.card_last4 ?? "0000",
    }),
  };
}

/** The intent as the caller's key may see it. */
export function viewFor(
  intent: PaymentIntentObject,
  keyKind: KeyKind,
): PaymentIntentObject | PublicPaymentIntentObject {
  if (keyKind === "secret") return intent;
  const publicFields: Partial<PaymentIntentObject> = { ...intent };
  delete publicFields.metadata;
  return publicFields as PublicPaymentIntentObject;
}
