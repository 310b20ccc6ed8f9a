import { preparedStatement } from "@storefront/kysely-prepared";
import { sql, type Insertable, type UpdateObject } from "kysely";
import type { ProcessorDB, ProcessorPaymentIntentTable, ProcessorTables } from "./processor-tables.ts";
import { DECLINE_MESSAGES, type CardCheck, type CardInputError } from "./card-outcomes.ts";
import { LIMITS, type MetadataChange, type ShippingChange } from "./payment-intent-params.ts";
import {
  toPaymentIntentObject,
  withExpandedPaymentMethod,
  type PaymentErrorObject,
  type PaymentIntentObject,
  type PaymentIntentRow,
} from "./payment-intent-object.ts";
import { newClientSecret, newId, randomAlphanumeric } from "./processor-ids.ts";
import { sameSecret } from "./processor-keys.ts";
import type {
  DisputeReason,
  OutcomeAfterAuthentication,
  PaymentIntentStatus,
  SettledOutcome,
  PendingRedirect,
  StoredPaymentError,
  StoredPaymentMethod,
  StoredShipping,
} from "./processor-tables.ts";
import { docUrl, invalidRequest, resourceMissing, unexpectedState } from "./stripe-errors.ts";
import { newEvent, type EventRequest, type EventType } from "./webhook-events.ts";
import type { EventClaim } from "./webhook-delivery.ts";

export interface NewPaymentIntent {
  amount: number;
  currency: string;
  metadata: MetadataChange | undefined;
  description: string | undefined;
  automaticPaymentMethods: { enabled: boolean; allow_redirects?: "always" | "never" } | undefined;
  shipping?: ShippingInput;
  receiptEmail: string | undefined;
}

/** `shipping` as a call gives it: absent optional fields are null in the object, as Stripe's are. */
export type ShippingInput = Extract<ShippingChange, { kind: "set" }>["shipping"];

export interface PaymentIntentChanges {
  amount?: number;
  shipping?: ShippingChange;
  metadata?: MetadataChange;
  description?: string;
  receiptEmail?: string;
}

/** How a confirm was asked for: what decides whether Stripe demands a return_url. */
export interface ConfirmOptions {
  returnUrl?: string;
  /** Stripe.js's own confirm (and the built-in card field's): it handles any next action in the page. */
  useStripeSdk?: boolean;
  receiptEmail?: string;
  /**
   * Where the hosted authentication page is served (`…/3d_secure`, on the origin the confirm reached): a confirm with
   * a return_url and without Stripe.js sends the shopper there for 3-D Secure (`next_action.redirect_to_url`).
   */
  authenticationPage?: string;
  /** Whether the caller may confirm this intent (its client secret), checked first, on the locked row. Throws if not. */
  checkCaller?: (intent: { client_secret: string }) => void;
}

/** The hosted authentication page's link: answered once, by the token it carries, while the challenge is pending. */
export const AUTHENTICATION_LINK_USED_MESSAGE = "This authentication page has already been used or has expired.";

/** Stripe's refusal when a confirm could lead to a redirect with nowhere to come back to (API 2023-08-16 and later). */
export const RETURN_URL_REQUIRED_MESSAGE =
  "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.";

/**
 * A confirm or authentication: the intent afterwards, the failure to report (402) if any, whether an event was
 * recorded, and the events recorded under a claim of this instance's, for it to send at once.
 */
export interface AttemptResult {
  intent: PaymentIntentObject;
  failure: PaymentErrorObject | null;
  recordedEvent: boolean;
  claimed: ClaimedEvents | null;
}

/** An event as its row holds it: the payload is the exact JSON body sent. */
interface RecordedEvent {
  id: string;
  type: string;
  payload: string;
}

/** Events recorded already claimed by the instance that recorded them (webhook-delivery.ts, `newClaim`). */
export interface ClaimedEvents {
  claim: EventClaim;
  events: RecordedEvent[];
}

type Row = PaymentIntentObject;

/** What a change sets, as the row reads (JSON columns as values, times as dates); `columnValues` writes it. */
type IntentChanges = Partial<Omit<PaymentIntentRow, "id" | "client_secret" | "created_at" | "version">>;

/** The intent's jsonb columns: written as JSON text, read back as values. */
const JSON_COLUMNS = [
  "metadata",
  "automatic_payment_methods",
  "after_authentication",
  "pending_redirect",
  "shipping",
  "after_processing",
  "last_payment_error",
] as const satisfies readonly (keyof IntentChanges)[];

function columnValues(changes: IntentChanges): UpdateObject<ProcessorTables, "processor_payment_intents"> {
  const values: Record<string, unknown> = { ...changes };
  for (const column of JSON_COLUMNS) {
    const value = changes[column];
    if (value !== undefined) values[column] = value === null ? null : JSON.stringify(value);
  }
  return values as UpdateObject<ProcessorTables, "processor_payment_intents">;
}

/** One change to an intent: what it sets, the event it causes, and any event about another object after it. */
interface Transition {
  set: IntentChanges;
  event?: EventType;
  then?: { type: EventType; object: (intent: PaymentIntentObject) => { id: string; object: string } };
}

/** Stripe lets a processing payment be canceled only for some methods, never for cards. */
const CANCELABLE: PaymentIntentStatus[] = ["requires_payment_method", "requires_action"];
const CONFIRMABLE: PaymentIntentStatus[] = ["requires_payment_method", "requires_action"];

const NEW_INTENT_COLUMNS = [
  "id",
  "client_secret",
  "amount",
  "currency",
  "metadata",
  "description",
  "automatic_payment_methods",
  "shipping",
  "receipt_email",
] as const satisfies readonly (keyof ProcessorPaymentIntentTable)[];

/** A new intent's row as it is written: the rest of its columns take their defaults. */
type NewIntentRow = Required<Pick<Insertable<ProcessorPaymentIntentTable>, (typeof NEW_INTENT_COLUMNS)[number]>>;

/**
 * PaymentIntents in the database and their lifecycle: requires_payment_method → (requires_action →) succeeded, a
 * failed attempt back to requires_payment_method, and canceled. Every change is written only over the version of
 * the intent it was decided on, in one statement with the webhook event it causes. A card is stored as brand and
 * last four only.
 */
export function createPaymentIntentStore(
  db: ProcessorDB,
  /** Where a confirm's or an authentication's events get their claim, to be sent at once by this instance. */
  claims?: { newClaim(): EventClaim | null },
) {
  /** A new intent's row, built and compiled once: every checkout makes one. */
  const insertIntent = preparedStatement(db, NEW_INTENT_COLUMNS, (db, values: NewIntentRow) =>
    db.insertInto("processor_payment_intents").values(values).returningAll(),
  );
  // Every payment reads its intent, at least once to change it: built and compiled once.
  const readIntent = preparedStatement(db, ["id"], (db, values: { id: string }) =>
    db.selectFrom("processor_payment_intents").selectAll().where("id", "=", values.id),
  );

  /**
   * The change and its events in one statement (an outbox: an event is delivered if and only if its change is
   * written), and only over `version`: false when another change came first.
   */
  async function writeChange(
    id: string,
    version: number,
    changes: IntentChanges,
    events: readonly RecordedEvent[],
    claim: EventClaim | null,
  ) {
    const changed = db
      .updateTable("processor_payment_intents")
      .set({ ...columnValues(changes), version: version + 1 })
      .where("id", "=", id)
      .where("version", "=", version)
      .returning("id");
    const withChange = db.with("changed", () => changed);
    const rows =
      events.length === 0
        ? await withChange.selectFrom("changed").select("id").execute()
        : await withChange
            .with("recorded", (db) =>
              db
                .insertInto("processor_events")
                .columns(["id", "type", "payload", "claim_token", "claimed_until", "attempts"])
                .expression(
                  sql`select event.id, event.type, event.payload, ${claim?.token ?? null}::text, ${
                    claim ? sql`now() + make_interval(secs => ${claim.leaseSeconds})` : sql`null::timestamptz`
                  }, ${claim ? 1 : 0}::int from changed, (values ${sql.join(
                    events.map((event) => sql`(${event.id}, ${event.type}, ${event.payload})`),
                  )}) as event (id, type, payload)`,
                ),
            )
            .selectFrom("changed")
            .select("id")
            .execute();
    return rows.length > 0;
  }

  /**
   * Reads the intent, lets `decide` choose the change from its current state, and writes it with its events over
   * the version read. When another change came first (two confirms at once, a cancel beside a confirm), decides
   * again on what that one left: each lost race means another change was written, so this ends.
   */
  async function transition(
    id: string,
    request: EventRequest | null,
    decide: (current: PaymentIntentRow) => Transition,
    /** Whether the caller sends the events at once (a confirm, an authentication): they are then claimed for it. */
    sendsAtOnce = false,
  ): Promise<{ intent: Row; recordedEvent: boolean; claimed: ClaimedEvents | null }> {
    const claim = sendsAtOnce && request ? (claims?.newClaim() ?? null) : null;
    for (;;) {
      const [current] = (await readIntent({ id })).rows;
      if (!current) throw resourceMissing(id);
      const { set, event, then } = decide(current);
      // A hosted authentication link lives only while its challenge does: once the intent leaves requires_action
      // (authenticated, failed, canceled, another card), the link is spent.
      const spent = set.status !== undefined && set.status !== "requires_action" ? { pending_redirect: null } : {};
      const changes: IntentChanges = { ...set, ...spent, updated_at: new Date() };
      // The intent as the change leaves it: what the answer and the events carry.
      const intent = toPaymentIntentObject({ ...current, ...changes, version: current.version + 1 });
      const events = (
        request
          ? [
              ...(event ? [newEvent(event, intent, request)] : []),
              ...(then ? [newEvent(then.type, then.object(intent), request)] : []),
            ]
          : []
      ).map((made) => ({ id: made.id, type: made.type, payload: JSON.stringify(made) }));
      if (await writeChange(id, current.version, changes, events, claim)) {
        const claimed = claim && events.length > 0 ? { claim, events } : null;
        return { intent, recordedEvent: Boolean(event && request), claimed };
      }
    }
  }

  /**
   * A confirm's or an authentication's change, as the caller answers it: its events recorded claimed for the caller,
   * which sends them at once, and its failure (402) unless the intent succeeded.
   */
  async function attempt(
    id: string,
    request: EventRequest,
    decide: (current: PaymentIntentRow) => Transition,
  ): Promise<AttemptResult> {
    const { intent, recordedEvent, claimed } = await transition(id, request, decide, true);
    return {
      intent,
      failure: intent.status === "succeeded" ? null : intent.last_payment_error,
      recordedEvent,
      claimed,
    };
  }

  return {
    async create(input: NewPaymentIntent): Promise<Row> {
      const id = newId("pi");
      const [row] = (
        await insertIntent({
          id,
          client_secret: newClientSecret(id),
          amount: input.amount,
          currency: input.currency,
          metadata: JSON.stringify(mergeMetadata({}, input.metadata)),
          description: input.description || null,
          automatic_payment_methods: input.automaticPaymentMethods
            ? JSON.stringify(input.automaticPaymentMethods)
            : null,
          shipping: input.shipping ? JSON.stringify(toStoredShipping(input.shipping)) : null,
          receipt_email: input.receiptEmail || null,
        })
      ).rows;
      if (!row) throw new Error("processor: the new payment intent's row was not returned");
      return toPaymentIntentObject(row);
    },

    /** With `expand[]=payment_method`: the PaymentMethod (brand and last four) in place of its id. */
    async findExpanded(id: string): Promise<Row | undefined> {
      const [row] = (await readIntent({ id })).rows;
      return row && withExpandedPaymentMethod(row);
    },

    /** The hosted authentication page's challenge, with what the page shows (the amount), while it is pending. */
    async findPendingRedirect(
      id: string,
    ): Promise<{ redirect: PendingRedirect; amount: number; currency: string } | undefined> {
      const row = await db
        .selectFrom("processor_payment_intents")
        .select(["pending_redirect", "amount", "currency", "status"])
        .where("id", "=", id)
        .executeTakeFirst();
      if (!row?.pending_redirect || row.status !== "requires_action") return undefined;
      return { redirect: row.pending_redirect, amount: row.amount, currency: row.currency };
    },

    async find(id: string): Promise<Row | undefined> {
      const [row] = (await readIntent({ id })).rows;
      return row && toPaymentIntentObject(row);
    },

    /** Amount, metadata and description, while no payment is under way (Stripe allows more; the shop needs no more). */
    async update(id: string, changes: PaymentIntentChanges): Promise<Row> {
      const { intent } = await transition(id, null, (current) => {
        if (current.status !== "requires_payment_method") {
          throw unexpectedState(
            `This PaymentIntent could not be updated because it has a status of ${current.status}. You may only update a PaymentIntent with the status requires_payment_method.`,
            toPaymentIntentObject(current),
          );
        }
        const set: Transition["set"] = {};
        if (changes.amount !== undefined) set.amount = changes.amount;
        if (changes.metadata) set.metadata = mergeMetadata(current.metadata, changes.metadata);
        if (changes.description !== undefined) set.description = changes.description || null;
        if (changes.shipping)
          set.shipping = changes.shipping.kind === "set" ? toStoredShipping(changes.shipping.shipping) : null;
        if (changes.receiptEmail !== undefined) set.receipt_email = changes.receiptEmail || null;
        return { set };
      });
      return intent;
    },

    /** Canceled, with its payment_intent.canceled event (a shop gives back what the payment held). */
    async cancel(id: string, reason: string | undefined, request: EventRequest): Promise<Row> {
      const { intent } = await transition(id, request, (current) => {
        if (!CANCELABLE.includes(current.status)) {
          throw unexpectedState(
            `You cannot cancel this PaymentIntent because it has a status of ${current.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
            toPaymentIntentObject(current),
          );
        }
        return {
          set: {
            status: "canceled",
            canceled_at: new Date(),
            cancellation_reason: reason ?? null,
            after_authentication: null,
          },
          event: "payment_intent.canceled",
        };
      });
      return intent;
    },

    /** Charges a checked card: the card's outcome, or (for a card that cannot be used) its input error. */
    async confirm(
      id: string,
      check: CardCheck | null,
      request: EventRequest,
      options: ConfirmOptions = {},
    ): Promise<AttemptResult> {
      return attempt(id, request, (current) => {
        options.checkCaller?.(current);
        if (!CONFIRMABLE.includes(current.status)) {
          const message =
            current.status === "succeeded"
              ? "You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed."
              : `You cannot confirm this PaymentIntent because it has a status of ${current.status}.`;
          throw unexpectedState(message, toPaymentIntentObject(current));
        }
        if (!check) {
          throw unexpectedState(
            "You cannot confirm this PaymentIntent because it's missing a payment method. Confirm it again with payment_method_data.",
            toPaymentIntentObject(current),
          );
        }
        const methods = current.automatic_payment_methods;
        if (methods?.enabled && methods.allow_redirects !== "never" && !options.returnUrl && !options.useStripeSdk) {
          throw invalidRequest(RETURN_URL_REQUIRED_MESSAGE, { param: "return_url" });
        }
        if (!check.ok) return refusedCard(check.error);
        const paymentMethod = { id: newId("pm"), ...check.card };
        const outcome = check.outcome;
        const receipt: Transition["set"] =
          options.receiptEmail === undefined ? {} : { receipt_email: options.receiptEmail || null };
        if (outcome.kind === "authenticate") {
          // Stripe.js runs 3-D Secure in the page; a confirm that named a return_url without it (a server, a method
          // that redirects) sends the shopper to the hosted page instead, and back to that URL.
          const redirect: PendingRedirect | null =
            options.returnUrl && !options.useStripeSdk && options.authenticationPage
              ? newPendingRedirect(options.authenticationPage, id, options.returnUrl)
              : null;
          return {
            set: {
              ...withCard(paymentMethod),
              ...receipt,
              status: "requires_action",
              last_payment_error: null,
              after_authentication: outcome.afterAuthentication,
              pending_redirect: redirect,
            },
          };
        }
        if (outcome.kind === "processing") {
          return {
            set: {
              ...withCard(paymentMethod),
              ...receipt,
              status: "processing",
              last_payment_error: null,
              after_processing: outcome.then,
            },
            event: "payment_intent.processing",
          };
        }
        const settled = settle(current, outcome, paymentMethod);
        return { ...settled, set: { ...settled.set, ...receipt } };
      });
    },

    /**
     * The end of the 3-D Secure challenge: completed (the card's own outcome follows) or failed. From the hosted
     * page, `redirectToken` is the link's token: checked under the row lock, so a link answers once.
     */
    async authenticate(
      id: string,
      result: "complete" | "fail",
      request: EventRequest,
      redirectToken?: string,
    ): Promise<AttemptResult> {
      return attempt(id, request, (current) => {
        if (
          redirectToken !== undefined &&
          !(current.pending_redirect && sameSecret(redirectToken, current.pending_redirect.token))
        ) {
          throw unexpectedState(AUTHENTICATION_LINK_USED_MESSAGE, toPaymentIntentObject(current));
        }
        if (current.status !== "requires_action") {
          throw unexpectedState(
            `You cannot authenticate this PaymentIntent because it has a status of ${current.status}. Authentication is only possible while the status is requires_action.`,
            toPaymentIntentObject(current),
          );
        }
        const paymentMethod = {
          id: current.payment_method_id ?? newId("pm"),
          brand: current.card_brand ?? "unknown",
          last4: current.card_last4 ?? "0000",
        };
        if (result === "fail") {
          const error: StoredPaymentError = {
            type: "invalid_request_error",
            code: "payment_intent_authentication_failure",
            message: DECLINE_MESSAGES.authenticationFailure,
            doc_url: docUrl("payment_intent_authentication_failure"),
            payment_method: paymentMethod,
          };
          return {
            set: {
              status: "requires_payment_method",
              last_payment_error: error,
              after_authentication: null,
            },
            event: "payment_intent.payment_failed",
          };
        }
        const afterAuthentication: OutcomeAfterAuthentication = current.after_authentication ?? { kind: "succeed" };
        return settle(current, afterAuthentication, paymentMethod);
      });
    },

    /** The end of a processing payment (the processor's test helper; Stripe's bank decides it in its own time). */
    async finishProcessing(id: string, result: "succeed" | "fail", request: EventRequest): Promise<AttemptResult> {
      return attempt(id, request, (current) => {
        if (current.status !== "processing") {
          throw unexpectedState(
            `This PaymentIntent is not processing: it has a status of ${current.status}.`,
            toPaymentIntentObject(current),
          );
        }
        const paymentMethod = {
          id: current.payment_method_id ?? newId("pm"),
          brand: current.card_brand ?? "unknown",
          last4: current.card_last4 ?? "0000",
        };
        const outcome: SettledOutcome =
          result === "fail"
            ? {
                kind: "decline",
                decline: { code: "card_declined", declineCode: "generic_decline", message: DECLINE_MESSAGES.declined },
              }
            : (current.after_processing ?? { kind: "succeed" });
        const settled = settle(current, outcome, paymentMethod);
        return { ...settled, set: { ...settled.set, after_processing: null } };
      });
    },
  };
}

export type PaymentIntentStore = ReturnType<typeof createPaymentIntentStore>;

/** The final outcome of an attempt: the money is taken, or the card is declined and another may be tried. */
function settle(current: PaymentIntentRow, outcome: SettledOutcome, paymentMethod: StoredPaymentMethod): Transition {
  if (outcome.kind === "succeed") {
    const chargeId = newId("ch");
    const dispute = outcome.dispute;
    return {
      set: {
        ...withCard(paymentMethod),
        status: "succeeded",
        amount_received: current.amount,
        latest_charge: chargeId,
        last_payment_error: null,
        after_authentication: null,
      },
      event: "payment_intent.succeeded",
      // The dispute cards: the cardholder disputes the payment at once (Stripe sends it shortly after the charge).
      ...(dispute
        ? {
            then: {
              type: "charge.dispute.created" as const,
              object: (intent: PaymentIntentObject) => disputeObject(intent, chargeId, dispute),
            },
          }
        : {}),
    };
  }
  const { code, declineCode, message } = outcome.decline;
  const error: StoredPaymentError = {
    type: "card_error",
    code,
    ...(declineCode ? { decline_code: declineCode } : {}),
    message,
    doc_url: docUrl(code),
    payment_method: paymentMethod,
  };
  return {
    set: {
      ...withCard(paymentMethod),
      status: "requires_payment_method",
      last_payment_error: error,
      after_authentication: null,
    },
    event: "payment_intent.payment_failed",
  };
}

/**
 * A card that cannot be charged (wrong number, expiry or CVC): no charge is attempted, so no event, but the intent
 * says why, as Stripe's does, and is ready for another card.
 */
function refusedCard(error: CardInputError): Transition {
  const stored: StoredPaymentError = {
    type: "card_error",
    code: error.code,
    message: error.message,
    param: error.param,
    doc_url: docUrl(error.code),
    payment_method: null,
  };
  return {
    set: {
      status: "requires_payment_method",
      payment_method_id: null,
      card_brand: null,
      card_last4: null,
      last_payment_error: stored,
      after_authentication: null,
    },
  };
}

function newPendingRedirect(authenticationPage: string, id: string, returnUrl: string): PendingRedirect {
  const token = randomAlphanumeric(32);
  return { token, url: `${authenticationPage}/${id}/${token}`, return_url: returnUrl };
}

function withCard(paymentMethod: StoredPaymentMethod): Transition["set"] {
  return { payment_method_id: paymentMethod.id, card_brand: paymentMethod.brand, card_last4: paymentMethod.last4 };
}

/** Stripe answers with every field of `shipping`, an empty or absent one as null. */
function toStoredShipping(input: ShippingInput): StoredShipping {
  const orNull = (value: string | undefined) => (value ? value : null);
  const { address } = input;
  return {
    name: input.name,
    address: {
      line1: orNull(address.line1),
      line2: orNull(address.line2),
      city: orNull(address.city),
      state: orNull(address.state),
      postal_code: orNull(address.postal_code),
      country: orNull(address.country),
    },
    carrier: orNull(input.carrier),
    phone: orNull(input.phone),
    tracking_number: orNull(input.tracking_number),
  };
}

/** Stripe's metadata semantics: keys are merged, an empty value removes a key, `metadata=` removes all. */
function mergeMetadata(current: Record<string, string>, change: MetadataChange | undefined): Record<string, string> {
  if (!change) return current;
  const merged = new Map(change.clearAll ? [] : Object.entries(current));
  for (const [key, value] of change.entries) {
    if (value === "") merged.delete(key);
    else merged.set(key, value);
  }
  if (merged.size > LIMITS.metadataKeys) {
    throw invalidRequest(`Invalid metadata: metadata cannot contain more than ${LIMITS.metadataKeys} keys.`, {
      param: "metadata",
    });
  }
  return Object.fromEntries(merged);
}

/** A dispute as Stripe reports it in charge.dispute.created (docs.stripe.com/api/disputes/object). */
function disputeObject(intent: PaymentIntentObject, chargeId: string, reason: DisputeReason) {
  return {
    id: newId("dp"),
    object: "dispute",
    amount: intent.amount,
    charge: chargeId,
    created: Math.floor(Date.now() / 1000),
    currency: intent.currency,
    is_charge_refundable: reason === "inquiry",
    livemode: false,
    metadata: {},
    payment_intent: intent.id,
    reason: reason === "inquiry" ? "general" : reason,
    status: reason === "inquiry" ? "warning_needs_response" : "needs_response",
  };
}
