import type { Transaction } from "kysely";
import Stripe from "stripe";
import type { ProcessorTables } from "./processor-tables.ts";
import type { PaymentIntentObject } from "./payment-intent-object.ts";
import { newId } from "./processor-ids.ts";

/** The events the processor sends: every state change of an intent a shop listens to, refunds and disputes. */
export type EventType =
  | "payment_intent.processing"
  | "payment_intent.succeeded"
  | "payment_intent.payment_failed"
  | "payment_intent.canceled"
  | "charge.refunded"
  | "refund.created"
  | "refund.updated"
  | "charge.dispute.created";

/** The API request that caused an event, as Stripe names it in `event.request`. */
export interface EventRequest {
  id: string;
  idempotencyKey: string | null;
}

/** Stripe's Event object (docs.stripe.com/api/events/object), with the intent as it was after the change. */
export interface StripeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  /** The object as it was after the change: an intent, a charge, a refund or a dispute. */
  data: { object: PaymentIntentObject | { id: string; object: string } };
  livemode: false;
  pending_webhooks: number;
  request: { id: string; idempotency_key: string | null };
  type: EventType;
}

/** An event about `object` as it is now, caused by `request`: written by `recordEvent` or with the change it reports. */
export function newEvent(type: EventType, object: StripeEvent["data"]["object"], request: EventRequest): StripeEvent {
  return {
    id: newId("evt"),
    object: "event",
    // The version the SDK this shop ships with speaks, so its types describe the payload exactly.
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    // One endpoint: the shop's.
    pending_webhooks: 1,
    request: { id: request.id, idempotency_key: request.idempotencyKey },
    type,
  };
}

/**
 * Records an event in the same transaction as the change it reports (an outbox): it is delivered if and only if the
 * change is committed. Delivery (webhook-delivery.ts) reads it from the table, so any instance can send it.
 */
export async function recordEvent(
  trx: Transaction<ProcessorTables>,
  type: EventType,
  object: StripeEvent["data"]["object"],
  request: EventRequest,
): Promise<StripeEvent> {
  const event = newEvent(type, object, request);
  await trx
    .insertInto("processor_events")
    .values({ id: event.id, type, payload: JSON.stringify(event) })
    .execute();
  return event;
}
