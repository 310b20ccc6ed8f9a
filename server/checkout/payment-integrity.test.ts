import { afterAll, beforeAll, expect, it } from "vitest";
import Stripe from "stripe";
import { createLogger } from "#server/logger";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient, type PaymentProvider } from "#server/payments/payment-provider";
import type { BasketOwner } from "#server/basket/basket-owner";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { createCheckoutService, FINGERPRINT_METADATA_KEY } from "./checkout-service";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99
const IPAD = "3254354345"; // $598.99

/**
 * The intent at the processor and the shop's snapshot of what it pays for must never disagree unnoticed: an order
 * lists exactly what was paid, or there is no order and the payment waits for the operator's refund.
 */
describeEachDatabase("payment integrity: the paid amount and the recorded items agree", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let keys: NonNullable<Awaited<ReturnType<typeof createTestShop>>["processorKeys"]>;
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    keys = shop.processorKeys!;
  });
  afterAll(() => close());

  const shopperWith = async (...productIds: string[]) => {
    const browser = createHttpBrowser(origin);
    for (const productId of productIds) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  /** The guest behind an open intent, as the routes would resolve them from the cookie. */
  const ownerOf = async (clientSecret: string): Promise<BasketOwner> => {
    const row = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select("session_id")
      .where("client_secret", "=", clientSecret)
      .executeTakeFirstOrThrow();
    return { sessionId: row.session_id ?? "" };
  };
  const prepare = async (browser: ReturnType<typeof createHttpBrowser>, total?: number) => {
    const basket = ((await (await browser.get("/basket")).json()) as { basket: { subtotalCents: number } }).basket;
    const response = await browser.send(`/payments/create?total=${total ?? basket.subtotalCents}`, { method: "POST" });
    expect(response.status).toBe(201);
    return (await response.json()) as { clientSecret: string };
  };
  const removeOne = (browser: ReturnType<typeof createHttpBrowser>, productId: string) =>
    browser.postJson("/basket/remove", { productId });
  const ordersOf = (intentId: string) =>
    getDatabase().db.selectFrom("orders").selectAll().where("id", "=", intentId).execute();
  /**
   * A shopper with an open intent for a book and an Echo ($110.95) changes the basket to a book and an iPad
   * ($610.95); re-pricing A for it reaches the processor, then stalls before writing the row until released.
   */
  const stallRepricingToBookAndIpad = async () => {
    const browser = await shopperWith(BOOK, ECHO);
    const { clientSecret } = await prepare(browser);
    const owner = await ownerOf(clientSecret);
    await removeOne(browser, ECHO);
    await browser.postJson("/basket/add", { productId: IPAD });
    const stalled = stallAfterFirstUpdate(shop.services.provider);
    const checkout = createCheckoutService({
      db: getDatabase().db,
      basket: shop.services.basket,
      addresses: shop.services.addresses,
      shipping: shop.services.shipping,
      provider: stalled.provider,
      logger: createLogger("silent"),
      inventory: shop.services.inventory,
      promotions: shop.services.promotions,
      orders: shop.services.orders,
    });
    const repricingA = checkout.preparePayment(owner, 61095);
    await stalled.reachedProcessor;
    return { browser, clientSecret, owner, checkout, stalled, repricingA };
  };
  const processorSdk = () =>
    new Stripe(keys.secretKey, {
      host: "127.0.0.1",
      port: new URL(origin).port,
      protocol: "http",
      httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
    });

  it("two overlapping re-pricings that reach the processor and the shop's row in opposite orders still pay for what is recorded", async () => {
    const { browser, clientSecret, owner, checkout, stalled, repricingA } = await stallRepricingToBookAndIpad();

    // ...while re-pricing B, for the basket now holding the book alone ($11.96), runs from start to end:
    // processor update, then row.
    await removeOne(browser, IPAD);
    expect((await checkout.preparePayment(owner, 1196)).amountCents).toBe(1196);

    // A resumes: its row write must not make the row say "book and iPad" over an intent for $11.96.
    stalled.release();
    const afterA = await repricingA;
    expect(afterA.clientSecret).toBe(clientSecret);
    expect(afterA.amountCents).toBe(1196); // the page that asked for $610.95 is told its basket changed (409 at the route)

    const confirmed = await confirmCard(origin, clientSecret, keys.publishableKey, "4242424242424242");
    expect(confirmed.body.status).toBe("succeeded");
    const intentId = confirmed.body.id ?? "";
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(201);
    const [order] = await ordersOf(intentId);
    expect(order?.amount_cents).toBe(1196);
    expect(order?.items.map((item) => item.productId)).toEqual([BOOK]);
  });

  it("never hands out a payment for the row's amount while another re-pricing of it is on its way to the processor", async () => {
    const { browser, clientSecret, owner, checkout, stalled, repricingA } = await stallRepricingToBookAndIpad();
    const intentId = clientSecret.split("_secret_")[0] ?? "";

    // ...and the basket goes back to what the row still says. A page asking now must be given an intent that
    // really holds $110.95, not the row's word for it while the processor holds $610.95.
    await removeOne(browser, IPAD);
    await browser.postJson("/basket/add", { productId: ECHO });
    const pageB = await checkout.preparePayment(owner, 11095);
    expect(pageB.amountCents).toBe(11095);
    expect((await processorSdk().paymentIntents.retrieve(intentId)).amount).toBe(11095);

    stalled.release();
    await repricingA;
    expect((await processorSdk().paymentIntents.retrieve(intentId)).amount).toBe(11095);
    const row = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select(["amount_cents", "pending_fingerprint"])
      .where("payment_intent_id", "=", intentId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ amount_cents: 11095, pending_fingerprint: null });
  });

  it("holds a paid intent whose amount is not the snapshot's for review: no order, the basket kept, the shopper told", async () => {
    const browser = await shopperWith(BOOK, ECHO);
    const { clientSecret } = await prepare(browser);
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    // What a crash between the processor call and the row write leaves: the processor re-priced, the row not.
    await processorSdk().paymentIntents.update(intentId, { amount: 1196 });

    const confirmed = await confirmCard(origin, clientSecret, keys.publishableKey, "4242424242424242");
    expect(confirmed.body.status).toBe("succeeded");
    const recorded = await browser.postJson("/orders/record", { paymentIntentId: intentId });
    expect(recorded.status).toBe(409);
    expect(await recorded.json()).toMatchObject({
      error: {
        code: "PAYMENT_NEEDS_REVIEW",
        message:
          "Your payment of $11.96 went through, but it does not match your basket, so no order was placed. We will refund it in full; your basket is unchanged.",
      },
    });
    expect(await ordersOf(intentId)).toEqual([]);
    expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(2);
    const payment = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select(["status", "paid_amount_cents", "session_id"])
      .where("payment_intent_id", "=", intentId)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ status: "needs_review", paid_amount_cents: 1196 });
    const underReview = await shop.services.checkout.listPaymentsUnderReview({ sessionId: payment.session_id ?? "" });
    expect(underReview).toEqual([expect.objectContaining({ paymentIntentId: intentId, paidAmountCents: 1196 })]);
    // Asking again (the page retries) gives the same answer and still no order.
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(409);
    expect(await ordersOf(intentId)).toEqual([]);
  });

  it("holds for review a paid intent whose fingerprint is another basket's, even at the same amount", async () => {
    const browser = await shopperWith(ECHO);
    const { clientSecret } = await prepare(browser);
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    await processorSdk().paymentIntents.update(intentId, {
      metadata: { [FINGERPRINT_METADATA_KEY]: "another-basket" },
    });
    await confirmCard(origin, clientSecret, keys.publishableKey, "4242424242424242");
    const recorded = await browser.postJson("/orders/record", { paymentIntentId: intentId });
    expect(recorded.status).toBe(409);
    expect(await ordersOf(intentId)).toEqual([]);
  });

  it("applies the same rule to the signed webhook: a mismatched succeeded event records no order", async () => {
    const browser = await shopperWith(BOOK);
    const { clientSecret } = await prepare(browser);
    const intentId = clientSecret.split("_secret_")[0] ?? "";
    const intent = await processorSdk().paymentIntents.retrieve(intentId);
    const payload = JSON.stringify({
      id: `evt_mismatch_${intentId}`,
      object: "event",
      type: "payment_intent.succeeded",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { ...intent, status: "succeeded", amount: 59899 } },
    });
    const response = await fetch(new URL("/webhooks/stripe", origin), {
      method: "POST",
      body: payload,
      headers: {
        "content-type": "application/json",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: keys.webhookSecret }),
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, outcome: "needs-review" });
    expect(await ordersOf(intentId)).toEqual([]);
    const payment = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select(["status", "paid_amount_cents"])
      .where("payment_intent_id", "=", intentId)
      .executeTakeFirstOrThrow();
    expect(payment).toEqual({ status: "needs_review", paid_amount_cents: 59899 });
  });
});

/**
 * The real provider, except that its first updateIntent call, once the processor has answered, waits for
 * `release()` before returning: a re-pricing frozen between its processor call and its row write.
 */
function stallAfterFirstUpdate(provider: PaymentProvider) {
  let release = () => {};
  let reached = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reachedProcessor = new Promise<void>((resolve) => (reached = resolve));
  let calls = 0;
  const stalled: PaymentProvider = {
    ...provider,
    async updateIntent(id, input) {
      const result = await provider.updateIntent(id, input);
      if (++calls === 1) {
        reached();
        await gate;
      }
      return result;
    },
  };
  return { provider: stalled, reachedProcessor, release: () => release() };
}
