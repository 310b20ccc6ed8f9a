import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Stripe from "stripe";
import { openTestDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import type { DatabaseHandle } from "#server/db/client";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";

/**
 * The checkout suite against Stripe's own test mode, when an operator supplies test keys:
 *   STRIPE_TEST_SECRET_KEY=sk_test_… STRIPE_TEST_PUBLISHABLE_KEY=pk_test_… npx vitest run server/checkout
 * and, always, the same suite against the built-in processor, which follows Stripe's rules for the SDK's API version
 * (an intent with automatic payment methods needs a return_url to be confirmed from a server), so that a call Stripe
 * would refuse fails here first. Cards are confirmed with Stripe's test payment methods (pm_card_visa,
 * pm_card_chargeDeclined): Stripe refuses raw card numbers from a server.
 */
const secretKey = process.env.STRIPE_TEST_SECRET_KEY;
const publishableKey = process.env.STRIPE_TEST_PUBLISHABLE_KEY;
const hasKeys = Boolean(secretKey?.startsWith("sk_test_") && publishableKey?.startsWith("pk_test_"));
const RETURN_URL = "https://shop.example/payment/return";

if (!hasKeys) {
  describe("checkout against Stripe's test mode", () => {
    it.skip("skipped: set STRIPE_TEST_SECRET_KEY and STRIPE_TEST_PUBLISHABLE_KEY (test-mode keys) to run it", () => {});
  });
}

const targets = hasKeys ? (["stripe", "built-in"] as const) : (["built-in"] as const);

describe.each(targets)("checkout against %s test mode, through the SDK", (target) => {
  let database: DatabaseHandle;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  let stripe: Stripe;

  beforeAll(async () => {
    database = await openTestDatabase("pglite");
    const shop = await createTestShop(
      database,
      target === "stripe"
        ? {
            stripe: {
              secretKey: secretKey ?? "",
              publishableKey: publishableKey ?? "",
              webhookSecret: "whsec_unused_in_this_suite",
            },
          }
        : {},
    );
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    stripe =
      target === "stripe"
        ? new Stripe(secretKey ?? "")
        : new Stripe(shop.processorKeys?.secretKey ?? "", {
            host: "127.0.0.1",
            port: running.port,
            protocol: "http",
            httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
          });
  });
  afterAll(async () => {
    await close();
    await database.close();
  });

  it("creates intents as Stripe documents for the Payment Element: automatic payment methods", async () => {
    const browser = createHttpBrowser(origin);
    await browser.postJson("/basket/add", { productId: "12321341" });
    await addDeliveryAddress(browser);
    const { clientSecret } = (await (await browser.send("/payments/create?total=1196", { method: "POST" })).json()) as {
      clientSecret: string;
    };
    const intent = await stripe.paymentIntents.retrieve(clientSecret.split("_secret_")[0] ?? "");
    expect(intent).toMatchObject({
      amount: 1196,
      currency: "usd",
      automatic_payment_methods: { enabled: true },
      shipping: {
        name: "Ada Lovelace",
        address: { line1: "1 Main Street", city: "Los Angeles", state: "CA", postal_code: "90001", country: "US" },
      },
      status: "requires_payment_method",
    });
    // Confirmed from a server without a return_url, Stripe refuses such an intent: methods may redirect.
    await expect(stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      param: "return_url",
    });
  });

  it("pays with a test card, records the order once and empties the basket", async () => {
    const browser = createHttpBrowser(origin);
    await browser.postJson("/basket/add", { productId: "12321341" });
    await addDeliveryAddress(browser);
    const created = await browser.send("/payments/create?total=1196", { method: "POST" });
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    const confirmed = await stripe.paymentIntents.confirm(intentId, {
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    expect(confirmed.status).toBe("succeeded");
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(201);
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(201);
    const orders = await database.db
      .selectFrom("orders")
      .select(["id", "processor", "livemode"])
      .where("id", "=", intentId)
      .execute();
    expect(orders).toEqual([{ id: intentId, processor: target, livemode: false }]);
  });

  it("records nothing for a declined card", async () => {
    const browser = createHttpBrowser(origin);
    await browser.postJson("/basket/add", { productId: "23445930" });
    await addDeliveryAddress(browser);
    const { clientSecret } = (await (await browser.send("/payments/create?total=9899", { method: "POST" })).json()) as {
      clientSecret: string;
    };
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    await expect(
      stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_chargeDeclined", return_url: RETURN_URL }),
    ).rejects.toMatchObject({ code: "card_declined" });
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(409);
  });
});
