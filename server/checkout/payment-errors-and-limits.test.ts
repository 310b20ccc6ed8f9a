import { afterAll, beforeAll, expect, it } from "vitest";
import Stripe from "stripe";
import { createLogger } from "#server/logger";
import { addDeliveryAddress, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";
import { logProcessorError, PROCESSOR_ERROR_SENTENCES, toShopperError } from "#server/payments/processor-errors";

describeEachDatabase("processor errors in our words, and payment rate limits", (getDatabase) => {
  let origin = "";
  let port = 0;
  let secretKey = "";
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const shop = await createTestShop(getDatabase(), {
      paymentLimits: { createsPerSession: 3, createsPerIp: 1000, recordsPerSession: 2, recordsPerIp: 1000 },
    });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    port = running.port;
    close = running.close;
    secretKey = shop.processorKeys?.secretKey ?? "";
  });
  afterAll(() => close());

  const sdk = (key: string, at = port) =>
    new Stripe(key, {
      host: "127.0.0.1",
      port: at,
      protocol: "http",
      maxNetworkRetries: 0,
      httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
    });
  const thrown = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("tells a wrong key, an amount under the minimum and an unreachable processor apart", async () => {
    const wrongKey = await thrown(
      sdk("sk_test_wrongwrongwrong").paymentIntents.create({ amount: 1000, currency: "usd" }),
    );
    expect(toShopperError(wrongKey)).toMatchObject({
      code: "PAYMENT_PROVIDER_ERROR",
      message: PROCESSOR_ERROR_SENTENCES.misconfigured,
    });
    const tooSmall = await thrown(sdk(secretKey).paymentIntents.create({ amount: 10, currency: "usd" }));
    expect(toShopperError(tooSmall)).toMatchObject({
      code: "BAD_REQUEST",
      message: PROCESSOR_ERROR_SENTENCES.amountTooSmall,
    });
    const missing = await thrown(sdk(secretKey).paymentIntents.retrieve("pi_nonesuch"));
    expect(toShopperError(missing)).toMatchObject({ code: "NOT_FOUND" });
    const unreachable = await thrown(sdk(secretKey, 1).paymentIntents.retrieve("pi_nonesuch"));
    expect(toShopperError(unreachable)).toMatchObject({
      code: "PAYMENT_PROVIDER_ERROR",
      message: PROCESSOR_ERROR_SENTENCES.unreachable,
    });
    const intent = await sdk(secretKey).paymentIntents.create({
      amount: 1000,
      currency: "usd",
      allowed_payment_method_types: ["card"],
    });
    const declined = await thrown(
      sdk(secretKey).paymentIntents.confirm(intent.id, {
        payment_method: "pm_card_visa_chargeDeclinedInsufficientFunds",
      }),
    );
    expect(toShopperError(declined)).toMatchObject({
      code: "PAYMENT_NOT_COMPLETE",
      message: PROCESSOR_ERROR_SENTENCES.insufficientFunds,
    });

    // The operator's log: Stripe's names and the request id, and no card.
    const lines: Record<string, unknown>[] = [];
    logProcessorError(
      createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
      "confirm",
      declined,
    );
    expect(lines[0]).toMatchObject({
      operation: "confirm",
      processorError: {
        type: "card_error",
        code: "card_declined",
        declineCode: "insufficient_funds",
        requestId: expect.stringMatching(/^req_/),
        statusCode: 402,
      },
    });
    expect(JSON.stringify(lines)).not.toMatch(/9995/);
  });

  it("answers the fourth payment creation in ten minutes from one session with the sign-in's clear 429", async () => {
    const browser = createHttpBrowser(origin);
    await browser.postJson("/basket/add", { productId: "12321341" });
    await addDeliveryAddress(browser);
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await browser.send("/payments/create?total=1196", { method: "POST" })).status).toBe(201);
    const refused = await browser.send("/payments/create?total=1196", { method: "POST" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: {
        code: "TOO_MANY_ATTEMPTS",
        message: expect.stringMatching(/^Too many payment attempts\. Please wait \d+ minutes? and try again\.$/),
      },
    });
    // Another shopper on the same address is not held back by this one.
    const other = createHttpBrowser(origin);
    await other.postJson("/basket/add", { productId: "12321341" });
    await addDeliveryAddress(other);
    expect((await other.send("/payments/create?total=1196", { method: "POST" })).status).toBe(201);
  });

  it("limits confirmation attempts (order recording) per session too", async () => {
    const browser = createHttpBrowser(origin);
    await browser.postJson("/basket/add", { productId: "12321341" });
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await browser.postJson("/orders/record", { paymentIntentId: "pi_unknown" })).status).toBe(404);
    expect((await browser.postJson("/orders/record", { paymentIntentId: "pi_unknown" })).status).toBe(429);
  });
});
