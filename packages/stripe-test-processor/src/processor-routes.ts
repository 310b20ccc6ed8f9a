import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import Stripe from "stripe";
import { z } from "zod";
import type { ProcessorDB } from "./processor-tables.ts";
import type { Logger } from "pino";
import { checkCard, checkTestPaymentMethod, type CardCheck } from "./card-outcomes.ts";
import { FormParseError, parseFormParams, type FormHash } from "./form-params.ts";
import { createIdempotencyStore, fingerprintRequest } from "./idempotency.ts";
import {
  AUTHENTICATION_PAGE_HEADERS,
  authenticationPage,
  authenticationPageGone,
  returnLocation,
} from "./authentication-page.ts";
import { viewFor, type PaymentIntentObject } from "./payment-intent-object.ts";
import {
  authenticateParams,
  cancelParams,
  confirmParams,
  createParams,
  finishProcessingParams,
  plainRetrieveParams,
  readParams,
  refundCreateParams,
  refundListParams,
  retrieveParams,
  updateParams,
} from "./payment-intent-params.ts";
import { createRefundStore } from "./refund-store.ts";
import {
  AUTHENTICATION_LINK_USED_MESSAGE,
  createPaymentIntentStore,
  type AttemptResult,
} from "./payment-intent-store.ts";
import { newId } from "./processor-ids.ts";
import { getProcessorKeys, identifyKey, presentedKey, sameSecret, type KeyKind } from "./processor-keys.ts";
import {
  internalError,
  invalidRequest,
  parameterMissing,
  resourceMissing,
  secretKeyRequired,
  StripeApiError,
  unrecognizedUrl,
} from "./stripe-errors.ts";
import type { EventRequest } from "./webhook-events.ts";
import type { WebhookDelivery } from "./webhook-delivery.ts";

const INTENT_ID_PATTERN = /^pi_[A-Za-z0-9]{1,64}$/;
const REFUND_ID_PATTERN = /^re_[A-Za-z0-9]{1,64}$/;
const CHARGE_ID_PATTERN = /^ch_[A-Za-z0-9]{1,64}$/;
const REDIRECT_TOKEN_PATTERN = /^[A-Za-z0-9]{32}$/;

/** Where the hosted authentication page is served, beside /v1/ (so under /_processor when mounted in a shop). */
const AUTHENTICATION_PAGE_PATH = "/3d_secure";

/** The shopper's answer on the hosted authentication page. */
const authenticationAnswer = z.strictObject({ outcome: z.enum(["complete", "fail"]) });

export interface ProcessorAppOptions {
  db: ProcessorDB;
  logger: Logger;
  /** Told after every change that recorded a webhook event, so it is sent at once rather than at the next round. */
  delivery: Pick<WebhookDelivery, "deliverSoon" | "newClaim" | "deliverClaimed">;
}

/** Larger than any request the processor accepts; the shop's own limit is the same. */
const MAX_BODY_BYTES = 32 * 1024;

/** An answer: status and JSON body. Card errors (402) and state errors (400) are answers too, and are replayed. */
interface ApiResponse {
  status: number;
  body: object;
}

interface CallContext<Params> {
  params: Params;
  keyKind: KeyKind;
  request: EventRequest;
  id: string;
  /** This processor as the caller reached it: origin and the path it is mounted at, e.g. http://127.0.0.1:3000/_processor. */
  processorUrl: string;
}

/**
 * The built-in test-mode card processor: the part of Stripe's PaymentIntents API the shop uses, with Stripe's
 * encoding, objects, errors and status codes, so the real Stripe SDK (and a Stripe.js-style browser call) can talk
 * to it. Routes are `/v1/…`; the shop mounts the app at `/_processor`. See README.md for what it imitates.
 */
export function createProcessorApp({ db, logger, delivery }: ProcessorAppOptions): Hono {
  const intents = createPaymentIntentStore(db, delivery);
  /** A confirm's or an authentication's events: sent now, by this instance, under the claim they were recorded with. */
  const deliverNow = (result: AttemptResult) => {
    if (result.claimed) delivery.deliverClaimed(result.claimed.claim, result.claimed.events);
    else if (result.recordedEvent) delivery.deliverSoon();
  };
  const refunds = createRefundStore(db);
  const idempotency = createIdempotencyStore(db);
  const app = new Hono();

  /**
   * One call: read the form (or query), authenticate, validate, then run under the Idempotency-Key if one was sent.
   * Errors before the call runs are answered and forgotten; the call's own answers (even errors) are kept for replay.
   */
  function endpoint<Schema extends z.ZodType>(
    access: "secret" | "secret-or-client",
    schema: Schema,
    run: (call: CallContext<z.output<Schema>>) => Promise<ApiResponse>,
    idPattern: { pattern: RegExp; missing: (id: string) => StripeApiError } = {
      pattern: INTENT_ID_PATTERN,
      missing: resourceMissing,
    },
  ) {
    return async (c: Context) => {
      const requestId = newId("req");
      try {
        const form = await readForm(c);
        const authorization = c.req.header("authorization");
        const keyKind = identifyKey(
          presentedKey(authorization, typeof form.key === "string" ? form.key : undefined),
          await getProcessorKeys(db),
          {
            fromBody: !authorization,
          },
        );
        if (access === "secret" && keyKind !== "secret") throw secretKeyRequired();
        const params = readParams(schema, form);
        refuseExpansion(params, c.req.method === "GET" ? ["payment_method"] : []);

        const idempotencyKey = c.req.method === "POST" ? c.req.header("idempotency-key") : undefined;
        const id = c.req.param("id") ?? "";
        // Ids the processor makes are a prefix and letters or digits; anything else (a NUL, say) cannot name an object.
        if (id && !idPattern.pattern.test(id)) throw idPattern.missing(id);
        const url = new URL(c.req.url);
        const processorUrl = url.origin + url.pathname.slice(0, url.pathname.indexOf("/v1/"));
        const call = {
          params,
          keyKind,
          request: { id: requestId, idempotencyKey: idempotencyKey ?? null },
          id,
          processorUrl,
        };
        if (idempotencyKey === undefined) {
          const response = await answer(run, call);
          return reply(c, requestId, response.status, JSON.stringify(response.body));
        }

        const keyHeaders = { "Idempotency-Key": idempotencyKey };
        const replay = await idempotency.begin(
          keyKind,
          idempotencyKey,
          fingerprintRequest(c.req.method, c.req.path, form),
        );
        if (replay)
          return reply(c, requestId, replay.status, replay.body, { ...keyHeaders, "Idempotent-Replayed": "true" });
        let response: ApiResponse;
        try {
          response = await answer(run, call);
        } catch (error) {
          await idempotency.release(keyKind, idempotencyKey);
          throw error;
        }
        const body = JSON.stringify(response.body);
        await idempotency.complete(keyKind, idempotencyKey, { status: response.status, body });
        return reply(c, requestId, response.status, body, keyHeaders);
      } catch (error) {
        const stripeError = error instanceof StripeApiError ? error : unexpected(error, requestId);
        return reply(c, requestId, stripeError.status, JSON.stringify({ error: stripeError.body }));
      }
    };
  }

  /** Runs a call; a Stripe error it raises is its answer (with the intent shown as the caller's key may see it). */
  async function answer<Params>(
    run: (call: CallContext<Params>) => Promise<ApiResponse>,
    call: CallContext<Params>,
  ): Promise<ApiResponse> {
    try {
      return await run(call);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      const intent = error.body.payment_intent as PaymentIntentObject | undefined;
      return {
        status: error.status,
        body: { error: intent ? { ...error.body, payment_intent: viewFor(intent, call.keyKind) } : error.body },
      };
    }
  }

  function unexpected(error: unknown, requestId: string): StripeApiError {
    logger.error({ err: error, requestId }, "processor: request failed");
    return internalError();
  }

  /**
   * The intent a call is about (read by `find`: with its PaymentMethod expanded, when the call asks for that); the
   * publishable key must also present its client secret.
   */
  async function findForCaller(
    id: string,
    keyKind: KeyKind,
    clientSecret: string | undefined,
    find: (id: string) => Promise<PaymentIntentObject | undefined> = intents.find,
  ): Promise<PaymentIntentObject> {
    const intent = await find(id);
    if (!intent) throw resourceMissing(id);
    checkCaller(intent, keyKind, clientSecret);
    return intent;
  }

  /** Whether the caller may act on this intent: the publishable key must present its client secret. Throws if not. */
  function checkCaller(intent: { client_secret: string }, keyKind: KeyKind, clientSecret: string | undefined): void {
    if (keyKind === "publishable" && clientSecret === undefined) throw parameterMissing("client_secret");
    if (clientSecret !== undefined && !sameSecret(clientSecret, intent.client_secret)) {
      throw invalidRequest("The client_secret provided does not match any associated PaymentIntent on this account.", {
        code: "payment_intent_invalid_parameter",
        param: "client_secret",
      });
    }
  }

  /** A confirm or authentication as Stripe answers it: the intent, or a 402 carrying the error and the intent. */
  function attemptResponse(result: AttemptResult, keyKind: KeyKind): ApiResponse {
    deliverNow(result);
    const intent = viewFor(result.intent, keyKind);
    logger.info(
      {
        paymentIntentId: result.intent.id,
        status: result.intent.status,
        code: result.failure?.code,
        declineCode: result.failure?.decline_code,
      },
      "processor: payment attempt",
    );
    return result.failure
      ? { status: 402, body: { error: { ...result.failure, payment_intent: intent } } }
      : { status: 200, body: intent };
  }

  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      reply(
        c,
        newId("req"),
        413,
        JSON.stringify({ error: invalidRequest("Request body too large.", { status: 413 }).body }),
      ),
  });
  app.use((c, next) => {
    // A body whose stated length is within the limit, or none at all, passes on the headers alone: Hono's middleware
    // would first build a whole web Request around the Node request just to look at its body.
    const length = c.req.header("content-length");
    if (c.req.header("transfer-encoding") === undefined) {
      if (length !== undefined && /^\d+$/.test(length) && Number(length) <= MAX_BODY_BYTES) return next();
      if (length === undefined && (c.req.method === "GET" || c.req.method === "HEAD")) return next();
    }
    return limitBody(c, next);
  });

  app.post(
    "/v1/payment_intents",
    endpoint("secret", createParams, async ({ params }) => {
      const intent = await intents.create({
        amount: params.amount,
        currency: params.currency,
        metadata: params.metadata,
        description: params.description,
        shipping: params.shipping,
        // Under the API versions since 2023-08-16, an intent that names no payment method types takes the
        // Dashboard's automatic payment methods, and may therefore need a return_url when confirmed.
        automaticPaymentMethods:
          params.automatic_payment_methods ??
          (params.payment_method_types || params.allowed_payment_method_types ? undefined : { enabled: true }),
        receiptEmail: params.receipt_email,
      });
      return { status: 200, body: intent };
    }),
  );

  app.get(
    "/v1/payment_intents/:id",
    endpoint("secret-or-client", retrieveParams, async ({ id, keyKind, params }) => {
      const intent = await findForCaller(
        id,
        keyKind,
        params.client_secret,
        params.expand?.includes("payment_method") ? intents.findExpanded : intents.find,
      );
      return { status: 200, body: viewFor(intent, keyKind) };
    }),
  );

  app.post(
    "/v1/payment_intents/:id",
    endpoint("secret", updateParams, async ({ id, params }) => ({
      status: 200,
      body: await intents.update(id, {
        amount: params.amount,
        metadata: params.metadata,
        description: params.description,
        shipping: params.shipping,
        receiptEmail: params.receipt_email,
      }),
    })),
  );

  app.post(
    "/v1/payment_intents/:id/cancel",
    endpoint("secret", cancelParams, async ({ id, params, request }) => ({
      status: 200,
      body: await intents.cancel(id, params.cancellation_reason, request),
    })),
  );

  app.post(
    "/v1/payment_intents/:id/confirm",
    endpoint("secret-or-client", confirmParams, async ({ id, keyKind, params, request, processorUrl }) => {
      const card = params.payment_method_data?.card;
      if (card && keyKind === "secret") {
        // Stripe refuses raw card numbers from servers that are not PCI-certified for them; card data comes from the browser.
        throw invalidRequest(
          "Sending credit card numbers directly to the Stripe API is generally unsafe. Confirm the payment in the browser with the publishable key instead.",
          { code: "raw_card_data_not_allowed" },
        );
      }
      if (card && params.payment_method) {
        throw invalidRequest("You may only specify one of these parameters: payment_method, payment_method_data.", {
          code: "parameters_exclusive",
          param: "payment_method",
        });
      }
      let check: CardCheck | null = null;
      if (card)
        check = checkCard(
          { number: card.number, expMonth: card.exp_month, expYear: card.exp_year, cvc: card.cvc },
          new Date(),
        );
      else if (params.payment_method) {
        check = checkTestPaymentMethod(params.payment_method) ?? null;
        if (!check) {
          throw invalidRequest(`No such PaymentMethod: '${params.payment_method.slice(0, 100)}'`, {
            code: "resource_missing",
            param: "payment_method",
            status: 400,
          });
        }
      }
      // The shopper may be sent there after the hosted authentication page: it must be an address a browser can go to.
      if (params.return_url !== undefined && !URL.canParse(params.return_url))
        throw invalidRequest("Not a valid URL", { code: "url_invalid", param: "return_url" });
      const options = {
        returnUrl: params.return_url,
        useStripeSdk: params.use_stripe_sdk,
        receiptEmail: params.receipt_email,
        authenticationPage: processorUrl + AUTHENTICATION_PAGE_PATH,
        // Checked on the intent as the confirm locks it: no read of its own before.
        checkCaller: (intent: { client_secret: string }) => checkCaller(intent, keyKind, params.client_secret),
      };
      return attemptResponse(await intents.confirm(id, check, request, options), keyKind);
    }),
  );

  app.post(
    "/v1/payment_intents/:id/authenticate",
    endpoint("secret-or-client", authenticateParams, async ({ id, keyKind, params, request }) => {
      await findForCaller(id, keyKind, params.client_secret);
      return attemptResponse(await intents.authenticate(id, params.outcome, request), keyKind);
    }),
  );

  // Not Stripe's: Stripe decides when a processing payment ends; here a test (or an operator trying the shop) does.
  app.post(
    "/v1/test_helpers/payment_intents/:id/finish_processing",
    endpoint("secret", finishProcessingParams, async ({ id, params, request }) =>
      attemptResponse(await intents.finishProcessing(id, params.outcome, request), "secret"),
    ),
  );

  /**
   * The hosted authentication page (Stripe's is on hooks.stripe.com): a shopper sent here by
   * `next_action.redirect_to_url` answers the challenge with a button; the answer goes through the same
   * authenticate as the API's, and the shopper is sent back (303) to the confirm's return_url with Stripe's
   * parameters. The link is its own credential (a random token, single use), as Stripe's is.
   */
  const pageAnswer = (status: number, html: string) =>
    new Response(html, { status, headers: AUTHENTICATION_PAGE_HEADERS });
  const linkGone = () => pageAnswer(404, authenticationPageGone(AUTHENTICATION_LINK_USED_MESSAGE));

  async function pendingChallenge(c: Context) {
    const id = c.req.param("id") ?? "";
    const token = c.req.param("token") ?? "";
    if (!INTENT_ID_PATTERN.test(id) || !REDIRECT_TOKEN_PATTERN.test(token)) return undefined;
    const pending = await intents.findPendingRedirect(id);
    return pending && sameSecret(token, pending.redirect.token) ? { id, token, ...pending } : undefined;
  }

  app.get(`${AUTHENTICATION_PAGE_PATH}/:id/:token`, async (c) => {
    const challenge = await pendingChallenge(c);
    return challenge ? pageAnswer(200, authenticationPage(challenge.amount, challenge.currency)) : linkGone();
  });

  app.post(`${AUTHENTICATION_PAGE_PATH}/:id/:token`, async (c) => {
    const answer = authenticationAnswer.safeParse(Object.fromEntries(new URLSearchParams(await c.req.text())));
    if (!answer.success)
      return pageAnswer(400, authenticationPageGone("Choose Complete authentication or Fail authentication."));
    const challenge = await pendingChallenge(c);
    if (!challenge) return linkGone();
    let result: AttemptResult;
    try {
      // The token is checked again under the intent's row lock: of two answers sent at once, one counts.
      result = await intents.authenticate(
        challenge.id,
        answer.data.outcome,
        { id: newId("req"), idempotencyKey: null },
        challenge.token,
      );
    } catch (error) {
      if (error instanceof StripeApiError) return linkGone();
      throw error;
    }
    deliverNow(result);
    logger.info(
      { paymentIntentId: result.intent.id, status: result.intent.status, outcome: answer.data.outcome },
      "processor: hosted authentication",
    );
    return new Response(null, {
      status: 303,
      headers: {
        location: returnLocation(challenge.redirect.return_url, result.intent),
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
      },
    });
  });

  const refundIds = {
    pattern: REFUND_ID_PATTERN,
    missing: (id: string) =>
      invalidRequest(`No such refund: '${id.slice(0, 100)}'`, { code: "resource_missing", param: "id", status: 404 }),
  };
  const chargeIds = {
    pattern: CHARGE_ID_PATTERN,
    missing: (id: string) =>
      invalidRequest(`No such charge: '${id.slice(0, 100)}'`, { code: "resource_missing", param: "id", status: 404 }),
  };

  app.post(
    "/v1/refunds",
    endpoint("secret", refundCreateParams, async ({ params, request }) => {
      const refund = await refunds.create(
        {
          paymentIntentId: params.payment_intent,
          chargeId: params.charge,
          amount: params.amount,
          reason: params.reason,
          metadata: params.metadata,
        },
        request,
      );
      delivery.deliverSoon();
      logger.info(
        { refundId: refund.id, paymentIntentId: refund.payment_intent, amount: refund.amount },
        "processor: refund",
      );
      return { status: 200, body: refund };
    }),
  );

  app.get(
    "/v1/refunds",
    endpoint("secret", refundListParams, async ({ params }) => ({
      status: 200,
      body: await refunds.list({
        paymentIntentId: params.payment_intent,
        chargeId: params.charge,
        limit: params.limit ?? 10,
        startingAfter: params.starting_after,
      }),
    })),
  );

  app.get(
    "/v1/refunds/:id",
    endpoint(
      "secret",
      plainRetrieveParams,
      async ({ id }) => ({ status: 200, body: await refunds.find(id) }),
      refundIds,
    ),
  );

  app.get(
    "/v1/charges/:id",
    endpoint(
      "secret",
      plainRetrieveParams,
      async ({ id }) => ({ status: 200, body: await refunds.charge(id) }),
      chargeIds,
    ),
  );

  // Mounted inside the shop, an unknown processor path must not fall through to the shop's pages.
  app.all("*", (c) =>
    reply(c, newId("req"), 404, JSON.stringify({ error: unrecognizedUrl(c.req.method, c.req.path).body })),
  );

  app.onError((error, c) => {
    const requestId = newId("req");
    return reply(c, requestId, 500, JSON.stringify({ error: unexpected(error, requestId).body }));
  });

  return app;
}

/** Parameters from the query (GET) or the form body (POST), in Stripe's bracket notation. */
async function readForm(c: Context): Promise<FormHash> {
  try {
    if (c.req.method !== "POST") return parseFormParams(new URL(c.req.url).search.slice(1));
    const body = await c.req.text();
    const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded" && !(type === undefined && body === "")) {
      throw invalidRequest(
        `Invalid request: unsupported Content-Type ${type ?? "(none)"}. Send parameters as application/x-www-form-urlencoded.`,
      );
    }
    return parseFormParams(body);
  } catch (error) {
    if (error instanceof FormParseError) throw invalidRequest(`Invalid request: ${error.message}`);
    throw error;
  }
}

/** Only a retrieved intent's payment_method can be expanded here; Stripe refuses an unknown expansion the same way. */
function refuseExpansion(params: unknown, expandable: readonly string[]): void {
  const expand = (params as { expand?: unknown[] }).expand ?? [];
  const refused = expand.find((field) => !expandable.includes(String(field)));
  if (refused !== undefined)
    throw invalidRequest(`This property cannot be expanded (${String(refused).slice(0, 100)}).`, { param: "expand" });
}

function reply(
  c: Context,
  requestId: string,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-cache, no-store",
      "request-id": requestId,
      "stripe-version": c.req.header("stripe-version") ?? Stripe.API_VERSION,
      ...headers,
    },
  });
}
