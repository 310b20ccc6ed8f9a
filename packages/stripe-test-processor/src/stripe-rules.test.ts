import Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../testing/test-database.ts";
import {
  cardFields,
  startProcessorTestServer,
  stripeFailure,
  type ProcessorTestServer,
} from "../testing/processor-test-server.ts";
import { RETURN_URL_REQUIRED_MESSAGE } from "./payment-intent-store.ts";

describeEachDatabase("the test-mode processor follows Stripe's rules for the SDK's API version", (getDatabase) => {
  let processor: ProcessorTestServer;
  beforeAll(async () => {
    processor = await startProcessorTestServer(getDatabase().db);
  });
  afterAll(async () => {
    await processor?.close();
  });

  const failure = stripeFailure;
  const create = (params: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
    processor.stripe.paymentIntents.create({ amount: 2000, currency: "usd", ...params });

  it("turns on automatic payment methods when none are named, and then wants a return_url to confirm, as Stripe does", async () => {
    const intent = await create();
    expect(intent.automatic_payment_methods).toEqual({ enabled: true });
    const refused = await failure(
      processor.stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" }),
    );
    expect(refused).toMatchObject({
      statusCode: 400,
      type: "StripeInvalidRequestError",
      param: "return_url",
      message: RETURN_URL_REQUIRED_MESSAGE,
    });
    expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "requires_payment_method",
    });

    const paid = await processor.stripe.paymentIntents.confirm(intent.id, {
      payment_method: "pm_card_visa",
      return_url: "https://shop.example/payment/return",
    });
    expect(paid).toMatchObject({
      status: "succeeded",
      amount_received: 2000,
      latest_charge: expect.stringMatching(/^ch_/),
    });
  });

  it("needs no return_url when redirects are off, when only cards are allowed, or on Stripe.js's card path", async () => {
    const never = await create({ automatic_payment_methods: { enabled: true, allow_redirects: "never" } });
    expect(await processor.stripe.paymentIntents.confirm(never.id, { payment_method: "pm_card_visa" })).toMatchObject({
      status: "succeeded",
    });
    const cardsOnly = await create({ allowed_payment_method_types: ["card"] });
    expect(cardsOnly.automatic_payment_methods).toBeNull();
    expect(
      await processor.stripe.paymentIntents.confirm(cardsOnly.id, { payment_method: "pm_card_mastercard" }),
    ).toMatchObject({ status: "succeeded" });
    const browser = await create();
    const response = await processor.browserPost(
      `/v1/payment_intents/${browser.id}/confirm`,
      cardFields(browser.client_secret ?? "", "4242424242424242"),
    );
    expect(response.status).toBe(200);
    const withoutSdk = await create();
    const fields: Record<string, string> = cardFields(withoutSdk.client_secret ?? "", "4242424242424242");
    delete fields.use_stripe_sdk;
    const refused = await processor.browserPost(`/v1/payment_intents/${withoutSdk.id}/confirm`, fields);
    expect(refused.status).toBe(400);
  });

  it("refuses amounts under Stripe's $0.50 minimum, on create and update", async () => {
    expect(await failure(create({ amount: 49 }))).toMatchObject({
      statusCode: 400,
      code: "amount_too_small",
      param: "amount",
      message: "Amount must be at least $0.50 usd",
    });
    const intent = await create({ amount: 50 });
    expect(intent.amount).toBe(50);
    expect(await failure(processor.stripe.paymentIntents.update(intent.id, { amount: 10 }))).toMatchObject({
      code: "amount_too_small",
    });
  });

  it("accepts parameters Stripe accepts and the processor does not act on", async () => {
    const intent = await create({
      receipt_email: "shopper@example.com",
      statement_descriptor_suffix: "STOREFRONT",
      capture_method: "automatic_async",
    });
    expect(intent.receipt_email).toBe("shopper@example.com");
    const updated = await processor.stripe.paymentIntents.update(intent.id, { receipt_email: "other@example.com" });
    expect(updated.receipt_email).toBe("other@example.com");
  });

  it.each([
    ["pm_card_visa", "succeeded", undefined],
    ["pm_card_amex", "succeeded", undefined],
    ["pm_card_discover", "succeeded", undefined],
    ["pm_card_diners", "succeeded", undefined],
    ["pm_card_jcb", "succeeded", undefined],
    ["pm_card_unionpay", "succeeded", undefined],
    ["pm_card_chargeDeclined", "declined", "generic_decline"],
    ["pm_card_visa_chargeDeclinedInsufficientFunds", "declined", "insufficient_funds"],
    ["pm_card_chargeDeclinedLostCard", "declined", "lost_card"],
    ["pm_card_chargeDeclinedFraudulent", "declined", "fraudulent"],
    ["pm_card_authenticationRequired", "requires_action", undefined],
    ["pm_card_threeDSecure2Required", "requires_action", undefined],
  ])("confirms with the test PaymentMethod %s: %s", async (paymentMethod, outcome, declineCode) => {
    const intent = await create({ allowed_payment_method_types: ["card"] });
    const confirm = processor.stripe.paymentIntents.confirm(intent.id, { payment_method: paymentMethod });
    if (outcome === "declined") {
      const error = await failure(confirm);
      expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
      expect(error).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: declineCode });
    } else {
      expect(await confirm).toMatchObject({ status: outcome });
    }
  });

  it("refuses a PaymentMethod it does not know", async () => {
    const intent = await create({ allowed_payment_method_types: ["card"] });
    expect(
      await failure(processor.stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_nonesuch" })),
    ).toMatchObject({ code: "resource_missing", param: "payment_method" });
  });

  it.each([
    ["6011111111111117", "discover"],
    ["36227206271667", "diners"],
    ["3566002020360505", "jcb"],
    ["6205500000000000004", "unionpay"],
    ["4000000000003055", "visa"],
  ])("takes the test card %s (%s) from the browser", async (number, brand) => {
    const intent = await create();
    const response = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", number, { postalCode: "SW1A 1AA" }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "succeeded" });
    const row = await getDatabase()
      .db.selectFrom("processor_payment_intents")
      .select(["card_brand", "card_last4"])
      .where("id", "=", intent.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ card_brand: brand, card_last4: number.slice(-4) });
  });

  it("keeps a processing payment processing, then finishes it with payment_intent.succeeded", async () => {
    const intent = await create({ allowed_payment_method_types: ["card"] });
    const processing = await processor.stripe.paymentIntents.confirm(intent.id, {
      payment_method: "pm_card_processing",
    });
    expect(processing).toMatchObject({ status: "processing", amount_received: 0 });
    expect(await failure(processor.stripe.paymentIntents.cancel(intent.id))).toMatchObject({
      code: "payment_intent_unexpected_state",
    });
    const finished = await processor.stripe.rawRequest(
      "POST",
      `/v1/test_helpers/payment_intents/${intent.id}/finish_processing`,
      { outcome: "succeed" },
    );
    expect(finished).toMatchObject({ status: "succeeded", amount_received: 2000 });
    await processor.waitFor(() =>
      processor.received.filter(({ event }) => (event.data.object as { id?: string }).id === intent.id).length === 2
        ? true
        : undefined,
    );
    const types = processor.received
      .filter(({ event }) => (event.data.object as { id?: string }).id === intent.id)
      .map(({ event }) => event.type);
    expect(types).toEqual(["payment_intent.processing", "payment_intent.succeeded"]);
  });

  it("sends charge.dispute.created after the dispute card's payment", async () => {
    const intent = await create();
    const response = await processor.browserPost(
      `/v1/payment_intents/${intent.id}/confirm`,
      cardFields(intent.client_secret ?? "", "4000000000000259"),
    );
    const paid = (await response.json()) as Stripe.PaymentIntent;
    expect(paid.status).toBe("succeeded");
    const dispute = await processor.waitFor(() =>
      processor.received.find(
        ({ event }) =>
          event.type === "charge.dispute.created" && (event.data.object as Stripe.Dispute).payment_intent === intent.id,
      ),
    );
    expect(dispute.event.data.object).toMatchObject({
      object: "dispute",
      amount: 2000,
      charge: paid.latest_charge,
      reason: "fraudulent",
      status: "needs_response",
    });
  });
});
