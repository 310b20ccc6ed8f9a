import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import Stripe from "stripe";
import { describeEachDatabase } from "../testing/test-database.ts";
import {
  cardFields,
  startProcessorTestServer,
  stripeFailure,
  type ProcessorTestServer,
} from "../testing/processor-test-server.ts";

const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

describeEachDatabase("the test-mode processor's PaymentIntents API, through the Stripe SDK", (getDatabase) => {
  let processor: ProcessorTestServer;
  beforeAll(async () => {
    processor = await startProcessorTestServer(getDatabase().db);
  });
  afterAll(async () => {
    await processor?.close();
  });

  const createIntent = (params: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
    processor.stripe.paymentIntents.create({ amount: 1196, currency: "usd", metadata: { basket: "b_1" }, ...params });
  const confirm = (intent: Stripe.PaymentIntent, number: string, card: Parameters<typeof cardFields>[2] = {}) =>
    processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", number, card),
    );
  const authenticate = (intent: Stripe.PaymentIntent, outcome: "complete" | "fail") =>
    processor.browserPost(`/v1/payment_intents/${intent.id}/authenticate`, {
      client_secret: intent.client_secret ?? "",
      outcome,
    });
  const failure = stripeFailure;

  it("creates an intent with Stripe's shape, and retrieves it", async () => {
    const before = Math.floor(Date.now() / 1000);
    const intent = await createIntent({
      description: "Order at Storefront",
      automatic_payment_methods: { enabled: true },
    });
    expect(intent).toEqual({
      id: expect.stringMatching(/^pi_[A-Za-z0-9]{24}$/),
      object: "payment_intent",
      amount: 1196,
      amount_capturable: 0,
      amount_received: 0,
      automatic_payment_methods: { enabled: true },
      canceled_at: null,
      cancellation_reason: null,
      capture_method: "automatic",
      client_secret: expect.stringMatching(new RegExp(`^${intent.id}_secret_[A-Za-z0-9]{25}$`)),
      confirmation_method: "automatic",
      created: expect.any(Number),
      currency: "usd",
      description: "Order at Storefront",
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: { basket: "b_1" },
      next_action: null,
      payment_method: null,
      payment_method_types: ["card"],
      shipping: null,
      receipt_email: null,
      status: "requires_payment_method",
    });
    expect(intent.created).toBeGreaterThanOrEqual(before - 1);
    expect(intent.lastResponse.requestId).toMatch(/^req_/);
    expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toEqual(intent);
  });

  it("keeps `shipping` as Stripe does: set at creation, changed or removed by an update, returned with every field", async () => {
    const shipping = {
      name: "Ada Lovelace",
      address: {
        line1: "1 Main Street",
        line2: "",
        city: "Los Angeles",
        state: "CA",
        postal_code: "90001",
        country: "US",
      },
    };
    const intent = await createIntent({ shipping });
    const expected = {
      name: "Ada Lovelace",
      address: {
        line1: "1 Main Street",
        line2: null,
        city: "Los Angeles",
        state: "CA",
        postal_code: "90001",
        country: "US",
      },
      carrier: null,
      phone: null,
      tracking_number: null,
    };
    expect(intent.shipping).toEqual(expected);
    expect((await processor.stripe.paymentIntents.retrieve(intent.id)).shipping).toEqual(expected);
    const moved = await processor.stripe.paymentIntents.update(intent.id, {
      shipping: {
        name: "Ada Lovelace",
        address: { line1: "2 Baker Street", city: "London", postal_code: "NW1 6XE", country: "GB" },
      },
    });
    expect(moved.shipping?.address).toEqual({
      line1: "2 Baker Street",
      line2: null,
      city: "London",
      state: null,
      postal_code: "NW1 6XE",
      country: "GB",
    });
    const removed = await processor.stripe.paymentIntents.update(intent.id, {
      shipping: "" as unknown as Stripe.PaymentIntentUpdateParams.Shipping,
    });
    expect(removed.shipping).toBeNull();
    const withoutName = await failure(
      createIntent({ shipping: { address: { line1: "1 Main Street" } } as Stripe.PaymentIntentCreateParams.Shipping }),
    );
    expect(withoutName).toMatchObject({ type: "StripeInvalidRequestError", param: "shipping[name]" });
  });

  it("expands a paid intent's payment_method to its brand and last four, and expands nothing else", async () => {
    const intent = await createIntent();
    expect((await confirm(intent, "4242424242424242")).status).toBe(200);
    const expanded = await processor.stripe.paymentIntents.retrieve(intent.id, { expand: ["payment_method"] });
    expect(expanded.payment_method).toEqual({
      id: expect.stringMatching(/^pm_/),
      object: "payment_method",
      type: "card",
      card: { brand: "visa", last4: "4242" },
      livemode: false,
    });
    const plain = await processor.stripe.paymentIntents.retrieve(intent.id);
    expect(plain.payment_method).toBe((expanded.payment_method as Stripe.PaymentMethod).id);
    expect(
      await failure(processor.stripe.paymentIntents.retrieve(intent.id, { expand: ["latest_charge"] })),
    ).toMatchObject({ param: "expand" });
  });

  it("accepts payment_method_types[]=card (or its newer name), and an upper-case currency", async () => {
    const listed = await createIntent({
      payment_method_types: ["card"],
      currency: "USD",
    } as Partial<Stripe.PaymentIntentCreateParams>);
    expect(listed).toMatchObject({ currency: "usd", payment_method_types: ["card"], automatic_payment_methods: null });
    expect(await createIntent({ allowed_payment_method_types: ["card"] })).toMatchObject({
      payment_method_types: ["card"],
    });
    const fromForm = await fetch(`${processor.origin}/_processor/v1/payment_intents`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${processor.keys.secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "amount=500&currency=usd&payment_method_types[]=card&metadata[basket]=b_2",
    });
    expect(await fromForm.json()).toMatchObject({
      amount: 500,
      metadata: { basket: "b_2" },
      payment_method_types: ["card"],
    });
  });

  it("updates amount, metadata (merged; an empty value removes a key) and description", async () => {
    const intent = await createIntent({ metadata: { basket: "b_1", keep: "yes" } });
    const updated = await processor.stripe.paymentIntents.update(intent.id, {
      amount: 2500,
      metadata: { basket: "", order: "o_9" },
      description: "Two books",
    });
    expect(updated).toMatchObject({
      id: intent.id,
      amount: 2500,
      metadata: { keep: "yes", order: "o_9" },
      description: "Two books",
      status: "requires_payment_method",
    });
    const cleared = await processor.stripe.paymentIntents.update(intent.id, { metadata: "", description: "" });
    expect(cleared).toMatchObject({ metadata: {}, description: null, amount: 2500 });
  });

  it("cancels, with or without a reason, and then refuses to confirm, update or cancel again", async () => {
    const intent = await createIntent();
    const canceled = await processor.stripe.paymentIntents.cancel(intent.id, { cancellation_reason: "abandoned" });
    expect(canceled).toMatchObject({
      status: "canceled",
      cancellation_reason: "abandoned",
      canceled_at: expect.any(Number),
    });
    expect(await processor.stripe.paymentIntents.cancel((await createIntent()).id)).toMatchObject({
      status: "canceled",
      cancellation_reason: null,
    });

    const again = await failure(processor.stripe.paymentIntents.cancel(intent.id));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again).toMatchObject({
      statusCode: 400,
      code: "payment_intent_unexpected_state",
      payment_intent: { id: intent.id, status: "canceled" },
    });
    expect(await failure(processor.stripe.paymentIntents.update(intent.id, { amount: 500 }))).toMatchObject({
      code: "payment_intent_unexpected_state",
    });

    const response = await confirm(intent, "4242424242424242");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        type: "invalid_request_error",
        code: "payment_intent_unexpected_state",
        payment_intent: { status: "canceled" },
      },
    });
  });

  it.each([
    ["4242424242424242", "visa"],
    ["5555555555554444", "mastercard"],
    ["378282246310005", "amex"],
  ])(
    "takes the payment with %s (%s): succeeded, amount_received = amount, the card kept as brand and last 4",
    async (number, brand) => {
      const intent = await createIntent();
      const response = await confirm(intent, number);
      expect(response.status).toBe(200);
      const confirmed = (await response.json()) as Stripe.PaymentIntent;
      expect(confirmed).toMatchObject({
        id: intent.id,
        status: "succeeded",
        amount_received: 1196,
        payment_method: expect.stringMatching(/^pm_/),
        last_payment_error: null,
        next_action: null,
      });
      expect(confirmed).not.toHaveProperty("metadata");

      const retrieved = await processor.stripe.paymentIntents.retrieve(intent.id);
      expect(retrieved).toMatchObject({
        status: "succeeded",
        amount_received: 1196,
        payment_method: confirmed.payment_method,
        metadata: { basket: "b_1" },
      });
      const row = await getDatabase()
        .db.selectFrom("processor_payment_intents")
        .select(["card_brand", "card_last4"])
        .where("id", "=", intent.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ card_brand: brand, card_last4: number.slice(-4) });

      expect(await failure(processor.stripe.paymentIntents.update(intent.id, { amount: 100 }))).toMatchObject({
        code: "payment_intent_unexpected_state",
      });
      expect(await failure(processor.stripe.paymentIntents.cancel(intent.id))).toMatchObject({
        code: "payment_intent_unexpected_state",
      });
      const twice = await confirm(intent, number);
      expect(twice.status).toBe(400);
      expect(await twice.json()).toMatchObject({
        error: {
          code: "payment_intent_unexpected_state",
          message:
            "You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.",
        },
      });
    },
  );

  it.each([
    ["4000000000000002", "card_declined", "generic_decline", "Your card was declined."],
    ["4000000000009995", "card_declined", "insufficient_funds", "Your card has insufficient funds."],
    ["4000000000009987", "card_declined", "lost_card", "Your card was declined."],
    ["4000000000009979", "card_declined", "stolen_card", "Your card was declined."],
    ["4000000000000069", "expired_card", undefined, "Your card has expired."],
    ["4000000000000127", "incorrect_cvc", undefined, "Your card's security code is incorrect."],
    [
      "4000000000000119",
      "processing_error",
      undefined,
      "An error occurred while processing your card. Try again in a little bit.",
    ],
    [
      "4111111111111111",
      "card_declined",
      "test_mode_live_card",
      "Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing.",
    ],
  ])(
    "declines %s with 402 %s / %s, and the intent waits for another card",
    async (number, code, declineCode, message) => {
      const intent = await createIntent();
      const response = await confirm(intent, number);
      expect(response.status).toBe(402);
      const { error } = (await response.json()) as {
        error: Record<string, unknown> & { payment_intent: Stripe.PaymentIntent };
      };
      expect(error).toMatchObject({
        type: "card_error",
        code,
        message,
        doc_url: expect.stringContaining("stripe.com/docs/error-codes/"),
      });
      expect(error.decline_code).toBe(declineCode);
      expect(error.payment_method).toMatchObject({
        object: "payment_method",
        type: "card",
        card: { last4: number.slice(-4) },
      });
      expect(error.payment_intent).toMatchObject({
        id: intent.id,
        status: "requires_payment_method",
        amount_received: 0,
        last_payment_error: { type: "card_error", code, message },
      });
      expect(error.payment_intent).not.toHaveProperty("metadata");

      const retrieved = await processor.stripe.paymentIntents.retrieve(intent.id);
      expect(retrieved).toMatchObject({ status: "requires_payment_method", last_payment_error: { code, message } });
      expect(retrieved.last_payment_error?.decline_code).toBe(declineCode);

      const retried = await confirm(intent, "4242424242424242");
      expect(await retried.json()).toMatchObject({ status: "succeeded", last_payment_error: null });
    },
  );

  it.each([
    [
      "a number that fails the Luhn check",
      "4242424242424241",
      {},
      "incorrect_number",
      "Your card number is incorrect.",
      "number",
    ],
    [
      "an expiry year in the past",
      "4242424242424242",
      { expYear: "2020" },
      "invalid_expiry_year",
      "Your card's expiration year is invalid.",
      "exp_year",
    ],
    [
      "an expiry month of 13",
      "4242424242424242",
      { expMonth: "13" },
      "invalid_expiry_month",
      "Your card's expiration month is invalid.",
      "exp_month",
    ],
    [
      "a two-digit CVC",
      "4242424242424242",
      { cvc: "12" },
      "invalid_cvc",
      "Your card's security code is invalid.",
      "cvc",
    ],
    [
      "a three-digit CVC on an Amex",
      "378282246310005",
      { cvc: "123" },
      "invalid_cvc",
      "Your card's security code is invalid.",
      "cvc",
    ],
  ])("refuses %s with 402 %s and takes nothing", async (_name, number, card, code, message, param) => {
    const intent = await createIntent();
    const response = await confirm(intent, number, card);
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({
      error: {
        type: "card_error",
        code,
        message,
        param,
        payment_intent: { status: "requires_payment_method", amount_received: 0 },
      },
    });
    expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "requires_payment_method",
      payment_method: null,
      last_payment_error: { code },
    });
  });

  it("refuses an expiry month already past this year", async () => {
    const now = new Date();
    if (now.getUTCMonth() === 0) return; // January: no month of this year is in the past.
    const intent = await createIntent();
    const response = await confirm(intent, "4242424242424242", {
      expMonth: String(now.getUTCMonth()),
      expYear: String(now.getUTCFullYear()),
    });
    expect(await response.json()).toMatchObject({ error: { code: "invalid_expiry_month" } });
  });

  it("surfaces a decline through the SDK as a StripeCardError with code and decline_code", async () => {
    const intent = await createIntent();
    const browserSdk = processor.sdk(processor.keys.publishableKey);
    const error = await failure(
      browserSdk.paymentIntents.confirm(intent.id, {
        client_secret: intent.client_secret,
        use_stripe_sdk: true,
        payment_method_data: {
          type: "card",
          card: { number: "4000000000009995", exp_month: 12, exp_year: Number(FUTURE_YEAR), cvc: "123" },
        },
      } as Stripe.PaymentIntentConfirmParams),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      code: "card_declined",
      decline_code: "insufficient_funds",
      message: "Your card has insufficient funds.",
    });
    expect(error.payment_intent).toMatchObject({ id: intent.id, status: "requires_payment_method" });
  });

  it.each([
    ["4000002760003184", 200, { status: "succeeded", amount_received: 1196 }],
    [
      "4000008260003178",
      402,
      {
        error: {
          type: "card_error",
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
        },
      },
    ],
  ])("asks %s for 3-D Secure; completing it gives the card's outcome", async (number, status, outcome) => {
    const intent = await createIntent();
    const response = await confirm(intent, number);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "requires_action",
      next_action: { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } },
      payment_method: expect.stringMatching(/^pm_/),
      amount_received: 0,
    });
    expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: "requires_action" });
    expect(await failure(processor.stripe.paymentIntents.update(intent.id, { amount: 100 }))).toMatchObject({
      code: "payment_intent_unexpected_state",
    });

    const completed = await authenticate(intent, "complete");
    expect(completed.status).toBe(status);
    expect(await completed.json()).toMatchObject(outcome);

    const late = await authenticate(intent, "complete");
    expect(late.status).toBe(400);
    expect(await late.json()).toMatchObject({ error: { code: "payment_intent_unexpected_state" } });
  });

  it.each(["4000002760003184", "4000008260003178"])(
    "fails %s when the shopper fails 3-D Secure, and another card can then pay",
    async (number) => {
      const intent = await createIntent();
      await confirm(intent, number);
      const failed = await authenticate(intent, "fail");
      expect(failed.status).toBe(402);
      const message =
        "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
      expect(await failed.json()).toMatchObject({
        error: {
          code: "payment_intent_authentication_failure",
          message,
          payment_intent: {
            status: "requires_payment_method",
            next_action: null,
            last_payment_error: { code: "payment_intent_authentication_failure", message },
          },
        },
      });
      expect(await (await confirm(intent, "4242424242424242")).json()).toMatchObject({ status: "succeeded" });
    },
  );

  it("lets the shopper confirm again while 3-D Secure is pending, with another card", async () => {
    const intent = await createIntent();
    await confirm(intent, "4000002760003184");
    expect(await (await confirm(intent, "5555555555554444")).json()).toMatchObject({ status: "succeeded" });
  });

  it("refuses to authenticate an intent that is not waiting for it, and an unknown outcome", async () => {
    const intent = await createIntent();
    const early = await authenticate(intent, "complete");
    expect(early.status).toBe(400);
    expect(await early.json()).toMatchObject({ error: { code: "payment_intent_unexpected_state" } });
    const odd = await processor.browserPost(`/v1/payment_intents/${intent.id}/authenticate`, {
      client_secret: intent.client_secret ?? "",
      outcome: "maybe",
    });
    expect(await odd.json()).toMatchObject({
      error: {
        type: "invalid_request_error",
        param: "outcome",
        message: "Invalid outcome: must be one of complete, or fail",
      },
    });
  });

  it("lets the publishable key see an intent only with its client secret, and then without metadata", async () => {
    const intent = await createIntent();
    const browserSdk = processor.sdk(processor.keys.publishableKey);
    const seen = await browserSdk.paymentIntents.retrieve(intent.id, { client_secret: intent.client_secret ?? "" });
    expect(seen).toMatchObject({ id: intent.id, amount: 1196, client_secret: intent.client_secret });
    expect(seen).not.toHaveProperty("metadata");

    expect(await failure(browserSdk.paymentIntents.retrieve(intent.id))).toMatchObject({
      statusCode: 400,
      code: "parameter_missing",
      param: "client_secret",
    });
    const other = await createIntent();
    const wrong = await failure(
      browserSdk.paymentIntents.retrieve(intent.id, { client_secret: other.client_secret ?? "" }),
    );
    expect(wrong).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(wrong).toMatchObject({ statusCode: 400, param: "client_secret" });
    const crossed = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(other.client_secret ?? "", "4242424242424242"),
    );
    expect(crossed.status).toBe(400);
    expect(await crossed.json()).toMatchObject({
      error: { code: "payment_intent_invalid_parameter", param: "client_secret" },
    });
    const withoutSecret: Partial<ReturnType<typeof cardFields>> = cardFields("", "4242424242424242");
    delete withoutSecret.client_secret;
    const unnamed = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      withoutSecret as Record<string, string>,
    );
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toMatchObject({ error: { code: "parameter_missing", param: "client_secret" } });
    expect((await processor.stripe.paymentIntents.retrieve(intent.id)).status).toBe("requires_payment_method");
  });

  it("accepts the publishable key as Stripe.js sends it, in the body", async () => {
    const intent = await createIntent();
    const response = await fetch(`${processor.origin}/_processor/v1/payment_intents/${intent.id}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...cardFields(intent.client_secret ?? "", "4242424242424242"),
        key: processor.keys.publishableKey,
        use_stripe_sdk: "true",
      }),
    });
    expect(await response.json()).toMatchObject({ status: "succeeded" });
  });

  it("lets the browser read an intent with the key and client secret in the query, as Stripe.js does", async () => {
    const intent = await createIntent();
    const query = new URLSearchParams({
      key: processor.keys.publishableKey,
      client_secret: intent.client_secret ?? "",
    });
    const response = await fetch(`${processor.origin}/_processor/v1/payment_intents/${intent.id}?${query}`);
    expect(response.status).toBe(200);
    const seen = (await response.json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ id: intent.id, status: "requires_payment_method" });
    expect(seen).not.toHaveProperty("metadata");
  });

  it("charges once when the same intent is confirmed many times at once", async () => {
    const intent = await createIntent();
    const responses = await Promise.all(Array.from({ length: 5 }, () => confirm(intent, "4242424242424242")));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400]);
    const events = await getDatabase()
      .db.selectFrom("processor_events")
      .select("type")
      .where("payload", "like", `%"id":"${intent.id}"%`)
      .execute();
    expect(events).toEqual([{ type: "payment_intent.succeeded" }]);
  });

  it("runs concurrent requests with one Idempotency-Key once: the others are told to retry, or get the replay", async () => {
    const idempotencyKey = crypto.randomUUID();
    const send = () =>
      fetch(`${processor.origin}/_processor/v1/payment_intents`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${processor.keys.secretKey}`,
          "content-type": "application/x-www-form-urlencoded",
          "idempotency-key": idempotencyKey,
        },
        body: "amount=900&currency=usd&metadata[basket]=b_race",
      });
    const responses = await Promise.all(Array.from({ length: 4 }, send));
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as Array<{
      id?: string;
      error?: { code: string };
    }>;
    const created = new Set(bodies.filter((body) => body.id).map((body) => body.id));
    expect(created.size).toBe(1);
    for (const [index, response] of responses.entries()) {
      if (response.status === 200) continue;
      expect(response.status).toBe(409);
      expect(bodies[index]).toMatchObject({ error: { code: "idempotency_key_in_use" } });
    }
    const replay = await send();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { id: string }).id).toBe([...created][0]);
  });

  it("keeps the publishable key to confirming and reading: creating, updating and cancelling need the secret key", async () => {
    const browserSdk = processor.sdk(processor.keys.publishableKey);
    const refused = await failure(browserSdk.paymentIntents.create({ amount: 100, currency: "usd" }));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(refused).toMatchObject({ statusCode: 401, code: "secret_key_required" });
    const intent = await createIntent();
    expect(await failure(browserSdk.paymentIntents.update(intent.id, { amount: 100 }))).toMatchObject({
      statusCode: 401,
    });
    expect(await failure(browserSdk.paymentIntents.cancel(intent.id))).toMatchObject({ statusCode: 401 });
  });

  it("refuses raw card data from the secret key, and a confirm without a card", async () => {
    const intent = await createIntent();
    const response = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields("", "4242424242424242"),
      {
        authorization: `Bearer ${processor.keys.secretKey}`,
      },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "raw_card_data_not_allowed" },
    });
    const bare = await failure(processor.stripe.paymentIntents.confirm(intent.id));
    expect(bare).toMatchObject({
      statusCode: 400,
      code: "payment_intent_unexpected_state",
      message: expect.stringContaining("missing a payment method"),
    });
    expect((await processor.stripe.paymentIntents.retrieve(intent.id)).status).toBe("requires_payment_method");
  });

  it("answers a wrong or missing API key with 401, never showing the whole key", async () => {
    const wrongKey = `sk_test_${"x".repeat(40)}WXYZ`;
    const error = await failure(processor.sdk(wrongKey).paymentIntents.create({ amount: 100, currency: "usd" }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error.statusCode).toBe(401);
    expect(error.message).toMatch(/^Invalid API Key provided: sk_test_\*+WXYZ$/);
    expect(error.message).not.toContain("xxxxxxxx");

    const anonymous = await fetch(`${processor.origin}/_processor/v1/payment_intents`, {
      method: "POST",
      body: new URLSearchParams({ amount: "100", currency: "usd" }),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("You did not provide an API key") },
    });

    const secretInBody = await fetch(`${processor.origin}/_processor/v1/payment_intents/pi_x/confirm`, {
      method: "POST",
      body: new URLSearchParams({ key: processor.keys.secretKey }),
    });
    expect(secretInBody.status).toBe(401);
    expect(await secretInBody.text()).not.toContain(processor.keys.secretKey);
  });

  it("answers an unknown intent with 404 resource_missing", async () => {
    const error = await failure(processor.stripe.paymentIntents.retrieve("pi_doesnotexist"));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
      param: "intent",
      message: "No such payment_intent: 'pi_doesnotexist'",
    });
    expect(await failure(processor.stripe.paymentIntents.update("pi_nope", { amount: 500 }))).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
    });
    const browser = await processor.browserPost(
      "/v1/payment_intents/pi_nope/confirm",
      cardFields("pi_nope_secret_x", "4242424242424242"),
    );
    expect(browser.status).toBe(404);
  });

  it.each([
    [
      "an unknown parameter",
      { foo: "bar" },
      { code: "parameter_unknown", param: "foo", message: "Received unknown parameter: foo" },
    ],
    [
      "an unknown nested parameter",
      { automatic_payment_methods: { enabled: true, colour: "red" } },
      { code: "parameter_unknown", message: "Received unknown parameter: automatic_payment_methods[colour]" },
    ],
    [
      "a missing amount",
      { amount: undefined },
      { code: "parameter_missing", param: "amount", message: "Missing required param: amount." },
    ],
    ["a zero amount", { amount: 0 }, { code: "amount_too_small", param: "amount" }],
    ["an amount above $999,999.99", { amount: 100_000_000 }, { code: "amount_too_large", param: "amount" }],
    [
      "a fractional amount",
      { amount: 10.5 },
      { code: "parameter_invalid_integer", param: "amount", message: "Invalid integer: 10.5" },
    ],
    ["a currency other than usd", { currency: "eur" }, { param: "currency" }],
    [
      "51 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, "v"])) },
      { param: "metadata", message: expect.stringContaining("50 keys") },
    ],
    [
      "a 41-character metadata key",
      { metadata: { ["k".repeat(41)]: "v" } },
      { param: "metadata", message: expect.stringContaining("40 characters") },
    ],
    [
      "a 501-character metadata value",
      { metadata: { k: "v".repeat(501) } },
      { param: "metadata", message: expect.stringContaining("500 characters") },
    ],
    [
      "both automatic and listed payment methods",
      { automatic_payment_methods: { enabled: true }, payment_method_types: ["card"] },
      { code: "parameters_exclusive" },
    ],
    [
      "a payment method type other than card",
      { payment_method_types: ["ideal"] },
      { param: "payment_method_types[0]" },
    ],
    [
      "an expansion",
      { expand: ["latest_charge"] },
      { param: "expand", message: "This property cannot be expanded (latest_charge)." },
    ],
  ])("refuses %s with 400 as Stripe does", async (_name, params, expected) => {
    const error = await failure(createIntent(params as Partial<Stripe.PaymentIntentCreateParams>));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({ statusCode: 400, rawType: "invalid_request_error", ...expected });
  });

  it("accepts 50 metadata keys of 40 characters with 500-character values", async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`${index}`.padStart(40, "k"), "v".repeat(500)]),
    );
    expect((await createIntent({ metadata })).metadata).toEqual(metadata);
  });

  it("replays a create sent again with the same Idempotency-Key, and refuses the key with other parameters", async () => {
    const idempotencyKey = `checkout-${crypto.randomUUID()}`;
    const created = await processor.stripe.paymentIntents.create(
      { amount: 700, currency: "usd", metadata: { basket: "b_idem" } },
      { idempotencyKey },
    );
    const replayed = await processor.stripe.paymentIntents.create(
      { amount: 700, currency: "usd", metadata: { basket: "b_idem" } },
      { idempotencyKey },
    );
    expect(replayed).toEqual(created);
    expect(replayed.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.lastResponse.headers["idempotency-key"]).toBe(idempotencyKey);
    expect(created.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    const count = await getDatabase()
      .db.selectFrom("processor_payment_intents")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(sql<boolean>`metadata @> ${JSON.stringify({ basket: "b_idem" })}::jsonb`)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);

    const mismatch = await failure(
      processor.stripe.paymentIntents.create(
        { amount: 701, currency: "usd", metadata: { basket: "b_idem" } },
        { idempotencyKey },
      ),
    );
    expect(mismatch).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(mismatch).toMatchObject({
      statusCode: 400,
      rawType: "idempotency_error",
      message: expect.stringContaining("same parameters"),
    });
  });

  it("replays a declined confirm without charging or reporting twice, and keeps nothing of a refused request", async () => {
    const intent = await createIntent();
    const idempotencyKey = crypto.randomUUID();
    const first = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", "4000000000000002"),
      { "idempotency-key": idempotencyKey },
    );
    const again = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", "4000000000000002"),
      { "idempotency-key": idempotencyKey },
    );
    expect(first.status).toBe(402);
    expect(again.status).toBe(402);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const otherCard = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", "4242424242424242"),
      { "idempotency-key": idempotencyKey },
    );
    expect(otherCard.status).toBe(400);
    expect(await otherCard.json()).toMatchObject({ error: { type: "idempotency_error" } });
    const events = await getDatabase()
      .db.selectFrom("processor_events")
      .select("payload")
      .where("payload", "like", `%${intent.id}%`)
      .execute();
    expect(events).toHaveLength(1);

    // A request refused before it ran (an unknown parameter) leaves the key free for a corrected one.
    const freshKey = crypto.randomUUID();
    const refused = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      { ...cardFields(intent.client_secret ?? "", "4242424242424242"), colour: "red" },
      { "idempotency-key": freshKey },
    );
    expect(refused.status).toBe(400);
    const corrected = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", "4242424242424242"),
      { "idempotency-key": freshKey },
    );
    expect(await corrected.json()).toMatchObject({ status: "succeeded" });
  });

  it("answers what it does not understand in Stripe's words", async () => {
    const unknownPath = await fetch(`${processor.origin}/_processor/v1/charges`, {
      headers: { authorization: `Bearer ${processor.keys.secretKey}` },
    });
    expect(unknownPath.status).toBe(404);
    expect(await unknownPath.json()).toMatchObject({
      error: {
        type: "invalid_request_error",
        message: expect.stringContaining("Unrecognized request URL (GET: /_processor/v1/charges)"),
      },
    });

    const post = (body: BodyInit, contentType = "application/x-www-form-urlencoded") =>
      fetch(`${processor.origin}/_processor/v1/payment_intents`, {
        method: "POST",
        headers: { authorization: `Bearer ${processor.keys.secretKey}`, "content-type": contentType },
        body,
      });
    const json = await post(JSON.stringify({ amount: 100, currency: "usd" }), "application/json");
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({
      error: {
        type: "invalid_request_error",
        message: expect.stringContaining("unsupported Content-Type application/json"),
      },
    });
    const deep = await post("amount=100&currency=usd&metadata[a][b][c][d][e]=1");
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { message: expect.stringContaining("nested too deeply") } });
    const repeated = await post("amount=100&amount=200&currency=usd");
    expect(await repeated.json()).toMatchObject({ error: { message: expect.stringContaining("more than once") } });
    const huge = await post(`amount=100&currency=usd&description=${"x".repeat(40 * 1024)}`);
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { type: "invalid_request_error" } });
  });
});
