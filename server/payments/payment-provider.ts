// The shop's one door to the card processor: the official Stripe SDK, talking to Stripe with keys or to the built-in
// test processor without, in the shop's own types.

import Stripe from "stripe";
import type { Logger } from "#server/logger";
import { logProcessorError, toShopperError } from "./processor-errors";

/**
 * The shop's one door to the card processor: the official Stripe SDK, whichever processor is behind it. With
 * Stripe keys it is Stripe; without them it is the built-in test-mode processor (packages/stripe-test-processor),
 * mounted at this server's own /_processor path and handed the SDK's requests in process. Vendor names (intents,
 * events) stop here: the rest of the shop sees ProviderIntent and PaymentEvent.
 */
export interface ProviderIntent {
  id: string;
  status: Stripe.PaymentIntent.Status;
  amountCents: number;
  currency: string;
  clientSecret: string;
  created: Date;
  metadata: Record<string, string>;
  /** The card it was paid with, when the PaymentMethod came expanded (brand and last four: never more of the card). */
  card: { brand: string; last4: string } | null;
  /** The delivery address the intent carries (Stripe's `shipping`), in the shop's terms. */
  shipping: ProviderShipping | null;
}

/** Stripe's `shipping` hash, as the shop sends it. */
export interface ProviderShipping {
  name: string;
  address: { line1: string; line2: string; city: string; state: string; postal_code: string; country: string };
}

/** A cardholder's dispute of a payment, as the processor reported it. */
export interface ProviderDispute {
  id: string;
  paymentIntentId: string | null;
  chargeId: string | null;
  amountCents: number;
  reason: string;
  status: string;
}

/** A refund as the processor made it. Only a "succeeded" one has given the money back. */
export interface ProviderRefund {
  id: string;
  paymentIntentId: string | null;
  amountCents: number;
  status: string;
  metadata: Record<string, string>;
}

/** What a webhook means to the shop, once its signature has been checked. */
export type PaymentEvent =
  | { id: string; kind: "payment-succeeded"; intent: ProviderIntent }
  | { id: string; kind: "payment-processing"; intent: ProviderIntent }
  | { id: string; kind: "payment-failed"; intent: ProviderIntent }
  /** Cancelled by the shop (a replaced intent), in the processor's dashboard, or by Stripe itself. */
  | { id: string; kind: "payment-canceled"; intent: ProviderIntent }
  | { id: string; kind: "dispute-created"; dispute: ProviderDispute }
  /** refund.updated carries the refund; charge.refunded only its intent (refunds are then listed by intent). */
  | { id: string; kind: "refund-updated"; refund: ProviderRefund }
  | { id: string; kind: "charge-refunded"; paymentIntentId: string }
  | { id: string; kind: "ignored"; type: string };

/** Which processor, and whether it moves real money: recorded with every intent and order. */
export interface ProcessorIdentity {
  processor: "built-in" | "stripe";
  livemode: boolean;
}

export interface ProviderSettings {
  mode: "stripe" | "built-in";
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Built-in mode: where this server listens (the processor is mounted at /_processor on it). */
  selfOrigin?: () => URL;
  /**
   * Built-in mode, mounted: this server's own request handler. The SDK's requests are handed to it as Requests
   * rather than sent through a socket back to this same process.
   */
  serveInProcess?: (request: Request) => Response | Promise<Response>;
  /** Built-in mode with the processor run as its own process: its base URL (PROCESSOR_URL), for the SDK and the browser. */
  processorUrl?: string;
  /** Stripe mode, tests only (TEST_ONLY_STRIPE_API_URL, test keys): the server's calls go to this test processor instead of Stripe. */
  testOnlyStripeApiUrl?: string;
  /** Where processor errors are logged (type, code, decline code, request id). */
  logger?: Logger;
  /** How long one call to the processor may take before the SDK gives up on it (and retries twice); 20 s. */
  timeoutMs?: number;
}

/**
 * The intent's creation parameters, as Stripe documents them for the Payment Element: automatic payment methods
 * (the Dashboard's choice), so methods that redirect come back to a return_url. The built-in card field confirms
 * the same intents the way Stripe.js's card path does (`use_stripe_sdk`), which needs no return_url.
 */
export function intentCreationParams(
  amountCents: number,
  metadata: Record<string, string>,
  shipping: ProviderShipping,
): Stripe.PaymentIntentCreateParams {
  return { amount: amountCents, currency: "usd", metadata, shipping, automatic_payment_methods: { enabled: true } };
}

export const BUILT_IN_PROCESSOR_PATH = "/_processor";

export function createPaymentProvider(settings: ProviderSettings) {
  let client: Stripe | undefined;
  // Built later than the provider itself: in built-in mode the port is known only once the server listens.
  const stripe = () => (client ??= createStripeClient(settings));

  const identity: ProcessorIdentity = {
    processor: settings.mode === "stripe" ? "stripe" : "built-in",
    livemode: settings.mode === "stripe" && /^(sk|rk)_live_/.test(settings.secretKey),
  };

  /** One SDK call: its error logged with Stripe's names, and turned into a sentence of ours. */
  async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      logProcessorError(settings.logger, operation, error);
      throw toShopperError(error);
    }
  }

  return {
    mode: settings.mode,
    identity,
    publishableKey: settings.publishableKey,
    /** Where the payment page sends the card in built-in mode: this server's /_processor, or the processor's own URL. */
    browserProcessorUrl: settings.processorUrl?.replace(/\/$/, "") ?? BUILT_IN_PROCESSOR_PATH,

    async createIntent(input: {
      amountCents: number;
      metadata: Record<string, string>;
      shipping: ProviderShipping;
      idempotencyKey: string;
    }) {
      const intent = await call("create intent", () =>
        stripe().paymentIntents.create(intentCreationParams(input.amountCents, input.metadata, input.shipping), {
          idempotencyKey: input.idempotencyKey,
        }),
      );
      return toProviderIntent(intent);
    },

    async updateIntent(
      id: string,
      input: { amountCents: number; metadata: Record<string, string>; shipping: ProviderShipping },
    ) {
      return toProviderIntent(
        await call("update intent", () =>
          stripe().paymentIntents.update(id, {
            amount: input.amountCents,
            metadata: input.metadata,
            shipping: input.shipping,
          }),
        ),
      );
    },

    async cancelIntent(id: string): Promise<void> {
      await call("cancel intent", () => stripe().paymentIntents.cancel(id));
    },

    /** With its PaymentMethod expanded, so a paid intent says which card paid it. */
    async retrieveIntent(id: string) {
      return toProviderIntent(
        await call("retrieve intent", () => stripe().paymentIntents.retrieve(id, { expand: ["payment_method"] })),
      );
    },

    /**
     * Gives back part or all of a paid intent. The idempotency key is the console's, one per refund form shown, so
     * a second submission of the same form returns the same refund instead of making another.
     */
    async createRefund(input: {
      paymentIntentId: string;
      amountCents: number;
      idempotencyKey: string;
      metadata: Record<string, string>;
    }): Promise<ProviderRefund> {
      const refund = await call("create refund", () =>
        stripe().refunds.create(
          { payment_intent: input.paymentIntentId, amount: input.amountCents, metadata: input.metadata },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      return toProviderRefund(refund);
    },

    /** Every refund of an intent, newest first (the SDK pages through them). */
    async listRefunds(paymentIntentId: string): Promise<ProviderRefund[]> {
      return call("list refunds", async () => {
        const refunds: ProviderRefund[] = [];
        for await (const refund of stripe().refunds.list({ payment_intent: paymentIntentId, limit: 100 })) {
          refunds.push(toProviderRefund(refund));
          if (refunds.length >= 1_000) break;
        }
        return refunds;
      });
    },

    /** Checks the signature on the raw body and turns the event into the shop's terms; throws if it is not genuine. */
    parseWebhook(rawBody: string, signature: string): PaymentEvent {
      const event = stripe().webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      // Signed but not shaped like an event about an object (only the secret's holder can send one): nothing to do.
      const object = (event as { data?: { object?: { object?: unknown; id?: unknown } } }).data?.object;
      if (typeof event.id !== "string" || typeof object?.id !== "string") {
        return { id: typeof event.id === "string" ? event.id : "", kind: "ignored", type: String(event.type) };
      }
      if (event.type === "charge.dispute.created" && object.object === "dispute")
        return { id: event.id, kind: "dispute-created", dispute: toProviderDispute(event.data.object) };
      if (event.type === "refund.updated" && object.object === "refund")
        return { id: event.id, kind: "refund-updated", refund: toProviderRefund(event.data.object) };
      if (event.type === "charge.refunded" && object.object === "charge") {
        const intent = event.data.object.payment_intent;
        const paymentIntentId = typeof intent === "string" ? intent : intent?.id;
        return paymentIntentId
          ? { id: event.id, kind: "charge-refunded", paymentIntentId }
          : { id: event.id, kind: "ignored", type: event.type };
      }
      if (object.object !== "payment_intent") return { id: event.id, kind: "ignored", type: event.type };
      if (event.type === "payment_intent.succeeded")
        return { id: event.id, kind: "payment-succeeded", intent: toProviderIntent(event.data.object) };
      if (event.type === "payment_intent.processing")
        return { id: event.id, kind: "payment-processing", intent: toProviderIntent(event.data.object) };
      if (event.type === "payment_intent.payment_failed")
        return { id: event.id, kind: "payment-failed", intent: toProviderIntent(event.data.object) };
      if (event.type === "payment_intent.canceled")
        return { id: event.id, kind: "payment-canceled", intent: toProviderIntent(event.data.object) };
      return { id: event.id, kind: "ignored", type: event.type };
    },
  };
}

export type PaymentProvider = ReturnType<typeof createPaymentProvider>;

function toProviderIntent(intent: Stripe.PaymentIntent): ProviderIntent {
  return {
    id: intent.id,
    status: intent.status,
    amountCents: intent.amount,
    currency: intent.currency,
    clientSecret: intent.client_secret ?? "",
    created: new Date(intent.created * 1000),
    metadata: intent.metadata ?? {},
    card: cardOf(intent.payment_method),
    shipping: intent.shipping?.name
      ? {
          name: intent.shipping.name,
          address: {
            line1: intent.shipping.address?.line1 ?? "",
            line2: intent.shipping.address?.line2 ?? "",
            city: intent.shipping.address?.city ?? "",
            state: intent.shipping.address?.state ?? "",
            postal_code: intent.shipping.address?.postal_code ?? "",
            country: intent.shipping.address?.country ?? "",
          },
        }
      : null,
  };
}

/** Brand and last four of an expanded card PaymentMethod; an id alone (not expanded) tells nothing. */
function cardOf(paymentMethod: string | Stripe.PaymentMethod | null): { brand: string; last4: string } | null {
  if (!paymentMethod || typeof paymentMethod === "string" || !paymentMethod.card) return null;
  return { brand: paymentMethod.card.brand, last4: paymentMethod.card.last4 };
}

function toProviderDispute(dispute: Stripe.Dispute): ProviderDispute {
  const idOf = (value: string | { id: string } | null | undefined) =>
    typeof value === "string" ? value : (value?.id ?? null);
  return {
    id: dispute.id,
    paymentIntentId: idOf(dispute.payment_intent),
    chargeId: idOf(dispute.charge),
    amountCents: dispute.amount,
    reason: dispute.reason,
    status: dispute.status,
  };
}

function toProviderRefund(refund: Stripe.Refund): ProviderRefund {
  const intent = refund.payment_intent;
  return {
    id: refund.id,
    paymentIntentId: typeof intent === "string" ? intent : (intent?.id ?? null),
    amountCents: refund.amount,
    status: refund.status ?? "pending",
    metadata: refund.metadata ?? {},
  };
}

function createStripeClient(settings: ProviderSettings): Stripe {
  const testApiUrl = settings.mode === "stripe" ? settings.testOnlyStripeApiUrl : undefined;
  if (testApiUrl && !/^(sk|rk)_test_/.test(settings.secretKey))
    throw new Error("TEST_ONLY_STRIPE_API_URL takes a test secret key only");
  const timeout = settings.timeoutMs ?? 20_000;
  if (settings.mode === "stripe" && !testApiUrl)
    return new Stripe(settings.secretKey, { maxNetworkRetries: 2, timeout });
  const givenUrl = testApiUrl ?? settings.processorUrl;
  const origin = givenUrl ? new URL(givenUrl) : settings.selfOrigin?.();
  if (!origin) throw new Error("The built-in processor needs the server's own address");
  const path = givenUrl ? origin.pathname.replace(/\/$/, "") : BUILT_IN_PROCESSOR_PATH;
  const serve = givenUrl ? undefined : settings.serveInProcess;
  return new Stripe(settings.secretKey, {
    host: origin.hostname,
    port: origin.port,
    protocol: origin.protocol === "https:" ? "https" : "http",
    maxNetworkRetries: 2,
    timeout,
    httpClient: prefixedHttpClient(
      path,
      serve ? Stripe.createFetchHttpClient(inProcessFetch(serve)) : Stripe.createNodeHttpClient(),
    ),
  });
}

/**
 * A fetch that hands each request to a handler of this process (a Hono app's `fetch`), with no socket between: the
 * request is the one a socket would have carried, and an abort (the SDK's timeout) gives up waiting for the answer.
 *
 * The abort is heard on the caller's own signal. A Request's signal follows the one it was given only through a weak
 * reference (undici's), and nothing else holds a request whose handler never answers: after a garbage collection its
 * signal never aborted, and the SDK waited for ever where a socket would have timed out.
 */
export function inProcessFetch(serve: (request: Request) => Response | Promise<Response>): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    const signal = init?.signal ?? request.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      Promise.resolve()
        .then(() => serve(request))
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
}

/** The SDK always requests /v1/…; the built-in processor lives under a path of its own on this server. */
export function prefixedHttpClient(
  prefix: string,
  inner: Stripe.HttpClient = Stripe.createNodeHttpClient(),
): Stripe.HttpClient {
  const client = Object.create(inner) as Stripe.HttpClient;
  client.makeRequest = (host, port, path, method, headers, requestData, protocol, timeout) =>
    inner.makeRequest(host, port, `${prefix}${path}`, method, headers, requestData, protocol, timeout);
  return client;
}
