import type { Selectable } from "kysely";
import type { ProcessorDB, ProcessorRefundTable } from "./processor-tables.ts";
import type { MetadataChange } from "./payment-intent-params.ts";
import { newId } from "./processor-ids.ts";
import { invalidRequest } from "./stripe-errors.ts";
import { recordEvent, type EventRequest } from "./webhook-events.ts";

type RefundRow = Selectable<ProcessorRefundTable>;

/** A Refund as Stripe's API returns it (docs.stripe.com/api/refunds/object). */
export interface RefundObject {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  created: number;
  currency: string;
  metadata: Record<string, string>;
  payment_intent: string;
  reason: string | null;
  status: RefundRow["status"];
}

/** The part of a Charge the processor keeps (docs.stripe.com/api/charges/object): what was paid and what refunded. */
export interface ChargeObject {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  captured: true;
  created: number;
  currency: string;
  livemode: false;
  metadata: Record<string, string>;
  paid: true;
  payment_intent: string;
  payment_method: string | null;
  payment_method_details: { type: "card"; card: { brand: string | null; last4: string | null } };
  refunded: boolean;
  status: "succeeded";
}

export interface NewRefund {
  paymentIntentId?: string;
  chargeId?: string;
  amount?: number;
  reason?: string;
  metadata?: MetadataChange;
}

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function toRefundObject(row: RefundRow): RefundObject {
  return {
    id: row.id,
    object: "refund",
    amount: row.amount,
    charge: row.charge_id,
    created: unixSeconds(row.created_at),
    currency: row.currency,
    metadata: row.metadata,
    payment_intent: row.payment_intent_id,
    reason: row.reason,
    status: row.status,
  };
}

const noSuchRefund = (id: string) =>
  invalidRequest(`No such refund: '${id.slice(0, 100)}'`, { code: "resource_missing", param: "id", status: 404 });
const noSuchCharge = (id: string) =>
  invalidRequest(`No such charge: '${id.slice(0, 100)}'`, { code: "resource_missing", param: "charge", status: 404 });
const noSuchIntent = (id: string) =>
  invalidRequest(`No such payment_intent: '${id.slice(0, 100)}'`, {
    code: "resource_missing",
    param: "payment_intent",
    status: 404,
  });

/**
 * Refunds of succeeded payments. A refund is written under the intent's row lock after summing the refunds already
 * made, so concurrent refunds can never return more than was paid; card refunds succeed at once, and each one
 * records refund.created, charge.refunded and refund.updated in the same transaction.
 */
export function createRefundStore(db: ProcessorDB) {
  async function chargeOf(trx: ProcessorDB, intentId: string): Promise<ChargeObject | undefined> {
    const intent = await trx
      .selectFrom("processor_payment_intents")
      .selectAll()
      .where("id", "=", intentId)
      .executeTakeFirst();
    if (!intent?.latest_charge) return undefined;
    const refunded = await trx
      .selectFrom("processor_refunds")
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), eb.lit(0)).as("total"))
      .where("payment_intent_id", "=", intentId)
      .where("status", "in", ["pending", "succeeded"])
      .executeTakeFirstOrThrow();
    const amountRefunded = Number(refunded.total);
    return {
      id: intent.latest_charge,
      object: "charge",
      amount: intent.amount_received,
      amount_captured: intent.amount_received,
      amount_refunded: amountRefunded,
      captured: true,
      created: unixSeconds(intent.updated_at),
      currency: intent.currency,
      livemode: false,
      metadata: intent.metadata,
      paid: true,
      payment_intent: intent.id,
      payment_method: intent.payment_method_id,
      payment_method_details: { type: "card", card: { brand: intent.card_brand, last4: intent.card_last4 } },
      refunded: amountRefunded >= intent.amount_received,
      status: "succeeded",
    };
  }

  return {
    async create(input: NewRefund, request: EventRequest): Promise<RefundObject> {
      const refund = await db.transaction().execute(async (trx) => {
        const intent = input.paymentIntentId
          ? await trx
              .selectFrom("processor_payment_intents")
              .selectAll()
              .where("id", "=", input.paymentIntentId)
              .forUpdate()
              .executeTakeFirst()
          : await trx
              .selectFrom("processor_payment_intents")
              .selectAll()
              .where("latest_charge", "=", input.chargeId ?? "")
              .forUpdate()
              .executeTakeFirst();
        if (!intent)
          throw input.paymentIntentId ? noSuchIntent(input.paymentIntentId) : noSuchCharge(input.chargeId ?? "");
        if (input.chargeId && intent.latest_charge !== input.chargeId) throw noSuchCharge(input.chargeId);
        if (intent.status !== "succeeded" || !intent.latest_charge) {
          throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, {
            code: "charge_not_refundable",
            param: "payment_intent",
          });
        }
        const charge = (await chargeOf(trx, intent.id)) as ChargeObject;
        const left = charge.amount - charge.amount_refunded;
        if (left <= 0)
          throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: "charge_already_refunded" });
        const amount = input.amount ?? left;
        if (amount > left) {
          throw invalidRequest(
            `Refund amount (${dollars(amount)}) is greater than unrefunded amount on charge (${dollars(left)})`,
            { param: "amount" },
          );
        }
        const metadata: Record<string, string> = {};
        for (const [key, value] of input.metadata?.entries ?? []) if (value !== "") metadata[key] = value;
        const row = await trx
          .insertInto("processor_refunds")
          .values({
            id: newId("re"),
            payment_intent_id: intent.id,
            charge_id: intent.latest_charge,
            amount,
            currency: intent.currency,
            status: "succeeded",
            reason: input.reason ?? null,
            metadata: JSON.stringify(metadata),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const refund = toRefundObject(row);
        const after = (await chargeOf(trx, intent.id)) as ChargeObject;
        await recordEvent(trx, "refund.created", refund, request);
        await recordEvent(trx, "charge.refunded", after, request);
        await recordEvent(trx, "refund.updated", refund, request);
        return refund;
      });
      return refund;
    },

    async find(id: string): Promise<RefundObject> {
      const row = await db.selectFrom("processor_refunds").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) throw noSuchRefund(id);
      return toRefundObject(row);
    },

    /** Newest first, as Stripe lists; `startingAfter` is the last id of the previous page. */
    async list(filter: { paymentIntentId?: string; chargeId?: string; limit: number; startingAfter?: string }) {
      let query = db.selectFrom("processor_refunds").selectAll();
      if (filter.paymentIntentId) query = query.where("payment_intent_id", "=", filter.paymentIntentId);
      if (filter.chargeId) query = query.where("charge_id", "=", filter.chargeId);
      if (filter.startingAfter) {
        const after = await db
          .selectFrom("processor_refunds")
          .select(["created_at", "id"])
          .where("id", "=", filter.startingAfter)
          .executeTakeFirst();
        if (!after) throw noSuchRefund(filter.startingAfter);
        query = query.where((eb) =>
          eb.or([
            eb("created_at", "<", after.created_at),
            eb.and([eb("created_at", "=", after.created_at), eb("id", "<", after.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit + 1)
        .execute();
      const url = "/v1/refunds";
      return {
        object: "list" as const,
        data: rows.slice(0, filter.limit).map(toRefundObject),
        has_more: rows.length > filter.limit,
        url,
      };
    },

    async charge(id: string): Promise<ChargeObject> {
      const intent = await db
        .selectFrom("processor_payment_intents")
        .select("id")
        .where("latest_charge", "=", id)
        .executeTakeFirst();
      const charge = intent && (await chargeOf(db, intent.id));
      if (!charge) throw noSuchCharge(id);
      return charge;
    },
  };
}
