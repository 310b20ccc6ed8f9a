import type { ColumnType, Generated, Kysely } from "kysely";

/**
 * Tables of the test-mode processor, all named `processor_*`. They belong to the processor alone: a shop that mounts
 * it never reads them, it talks to the processor over HTTP through the Stripe SDK, exactly as it would to Stripe.
 * (Created by the processor's own migrations, migrations/, run by migrateProcessor.)
 */
export interface ProcessorTables {
  processor_keys: ProcessorKeysTable;
  processor_payment_intents: ProcessorPaymentIntentTable;
  processor_idempotency_keys: ProcessorIdempotencyKeyTable;
  processor_events: ProcessorEventTable;
  processor_refunds: ProcessorRefundTable;
}

/** The database as the processor sees it: its own tables only, whatever else the database holds. */
export type ProcessorDB = Kysely<ProcessorTables>;

/** A jsonb column: read as a parsed value, written as JSON text (both drivers accept text for jsonb). */
type JsonColumn<T> = ColumnType<T, string, string>;
type NullableJsonColumn<T> = ColumnType<T | null, string | null | undefined, string | null>;

/** The one row of keys every instance shares (id is always 1). */
export interface ProcessorKeysTable {
  id: number;
  secret_key: string;
  publishable_key: string;
  webhook_secret: string;
  created_at: Generated<Date>;
}

export type PaymentIntentStatus =
  "requires_payment_method" | "requires_action" | "processing" | "succeeded" | "canceled";

/** What the card does once the shopper completes 3-D Secure; null when no challenge is pending. */
export type OutcomeAfterAuthentication = SettledOutcome;

/**
 * The hosted authentication page a shopper is sent to (`next_action.redirect_to_url`): its address, the token in it
 * (single use: cleared when the intent leaves requires_action) and the confirm's return_url.
 */
export interface PendingRedirect {
  token: string;
  url: string;
  return_url: string;
}

/** How an attempt ends: paid (and, for the dispute cards, disputed at once) or declined. */
/** Why a card was refused, in Stripe's terms: the error code, the decline code and the message a shopper reads. */
export interface Decline {
  code: string;
  declineCode?: string;
  message: string;
}

export type SettledOutcome = { kind: "succeed"; dispute?: DisputeReason } | { kind: "decline"; decline: Decline };

/** Stripe's dispute reasons its test cards produce; an inquiry is an early, informal dispute. */
export type DisputeReason = "fraudulent" | "product_not_received" | "inquiry";

/** A failed attempt as Stripe reports it in `last_payment_error` (never a card number: brand and last 4 only). */
export interface StoredPaymentError {
  type: "card_error" | "invalid_request_error";
  code: string;
  decline_code?: string;
  message: string;
  param?: string;
  doc_url: string;
  payment_method: StoredPaymentMethod | null;
}

/** Stripe's `shipping` object (docs.stripe.com/api/payment_intents/object#payment_intent_object-shipping). */
export interface StoredShipping {
  name: string;
  address: {
    line1: string | null;
    line2: string | null;
    city: string | null;
    state: string | null;
    postal_code: string | null;
    country: string | null;
  };
  carrier: string | null;
  phone: string | null;
  tracking_number: string | null;
}

export interface StoredPaymentMethod {
  id: string;
  brand: string;
  last4: string;
}

export interface ProcessorPaymentIntentTable {
  /** pi_… */
  id: string;
  client_secret: string;
  /** Integer cents. */
  amount: number;
  amount_received: Generated<number>;
  currency: string;
  status: Generated<PaymentIntentStatus>;
  metadata: JsonColumn<Record<string, string>>;
  description: string | null;
  /** The `automatic_payment_methods` hash given at creation, echoed back; null when none was given. */
  automatic_payment_methods: NullableJsonColumn<{ enabled: boolean; allow_redirects?: "always" | "never" }>;
  /** The card last used: pm_… id, brand and last four digits. The number and CVC are never stored. */
  payment_method_id: string | null;
  card_brand: string | null;
  card_last4: string | null;
  after_authentication: NullableJsonColumn<OutcomeAfterAuthentication>;
  /** While 3-D Secure waits on the hosted authentication page (a confirm with a return_url, without Stripe.js). */
  pending_redirect: NullableJsonColumn<PendingRedirect>;
  /** The intent's `shipping` hash as Stripe returns it; null when none was given. */
  shipping: NullableJsonColumn<StoredShipping>;
  /** While processing: what the payment becomes when it is finished (test helper). */
  after_processing: NullableJsonColumn<SettledOutcome>;
  /** ch_…, set when the payment succeeds: refunds are made against it. */
  latest_charge: string | null;
  /** Accepted and echoed, as Stripe does; the processor sends no receipts. */
  receipt_email: string | null;
  last_payment_error: NullableJsonColumn<StoredPaymentError>;
  canceled_at: Date | null;
  cancellation_reason: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Counted up by every change: a change is written only over the version it was decided on. */
  version: Generated<number>;
}

/** A POST answered under an Idempotency-Key, kept 24 hours so a retry gets the same answer. */
export interface ProcessorIdempotencyKeyTable {
  /** Which key made the request ("secret" or "publishable"): the two callers never share keys. */
  key_kind: string;
  idempotency_key: string;
  /** SHA-256 of method, path and parameters (card number reduced to its last four, CVC left out). */
  fingerprint: string;
  /** "pending" while the first request runs, then "complete" with its response. */
  state: string;
  response_status: number | null;
  response_body: string | null;
  locked_at: Generated<Date>;
  expires_at: Date;
}

/** A webhook event and its delivery state: due at next_attempt_at until delivered or given up. */
export interface ProcessorEventTable {
  /** evt_… */
  id: string;
  type: string;
  /** The exact JSON body sent, signed afresh at every attempt. */
  payload: string;
  created_at: Generated<Date>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  /** Set when an instance claims the event; only that claim may record the outcome. */
  claim_token: string | null;
  claimed_until: Date | null;
  delivered_at: Date | null;
  gave_up_at: Date | null;
  last_error: string | null;
}

/** A refund of a payment's charge (docs.stripe.com/api/refunds/object). */
export interface ProcessorRefundTable {
  /** re_… */
  id: string;
  payment_intent_id: string;
  charge_id: string;
  /** Integer cents, more than zero. */
  amount: number;
  currency: string;
  status: "pending" | "succeeded" | "failed" | "canceled";
  reason: string | null;
  metadata: JsonColumn<Record<string, string>>;
  created_at: Generated<Date>;
}
