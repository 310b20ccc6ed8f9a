import { afterAll, beforeAll, expect, it } from "vitest";
import { sql } from "kysely";
import Stripe from "stripe";
import { createPageShop } from "#server/testing/page-shop";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { BUILT_IN_PROCESSOR_PATH, prefixedHttpClient } from "#server/payments/payment-provider";

const BOOK = "12321341"; // $11.96
const RETURN_URL = "http://127.0.0.1/payment/return";

/**
 * The return page, against the built-in processor: where a payment confirmed with the Payment Element comes back
 * after a method that left the page. It records the order the same exactly-once way as the page's own call.
 */
describeEachDatabase("the payment return page and processing payments", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let origin = "";
  let stopListening: () => Promise<void> = async () => {};
  let stripe: Stripe;

  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    stopListening = running.close;
    stripe = new Stripe(shop.processorKeys?.secretKey ?? "", {
      host: "127.0.0.1",
      port: running.port,
      protocol: "http",
      httpClient: prefixedHttpClient(BUILT_IN_PROCESSOR_PATH),
    });
  }, 60_000);
  afterAll(async () => {
    await stopListening();
    await shop.close();
  });

  const shopperWithIntent = async () => {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    await addDeliveryAddress(browser);
    const created = await browser.send("/payments/create?total=1196", { method: "POST" });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    return { browser, intentId: clientSecret.split("_secret_")[0] ?? "", clientSecret };
  };
  const returnTo = (browser: ReturnType<typeof createHttpBrowser>, intentId: string) =>
    browser.send(
      `/payment/return?payment_intent=${intentId}&payment_intent_client_secret=x&redirect_status=succeeded`,
      { headers: { accept: "text/html" } },
    );
  const ordersFor = (intentId: string) =>
    getDatabase().db.selectFrom("orders").select(["id", "processor", "livemode"]).where("id", "=", intentId).execute();

  it("records a succeeded payment once and goes to the orders, however often it is reached", async () => {
    const { browser, intentId } = await shopperWithIntent();
    expect(
      await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_visa", return_url: RETURN_URL }),
    ).toMatchObject({ status: "succeeded" });
    for (let visit = 0; visit < 2; visit++) {
      const response = await returnTo(browser, intentId);
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toMatch(/^\/orders\?placed=SF-\d{4}-[2-9A-Z]{4}$/);
    }
    expect(await ordersFor(intentId)).toEqual([{ id: intentId, processor: "built-in", livemode: false }]);
    expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(0);
  });

  it("finishes the order when the shopper comes back from the hosted 3-D Secure page, once, though the webhook also records it", async () => {
    const { browser, intentId } = await shopperWithIntent();
    const returnUrl = `${origin}/payment/return`;
    const confirmed = await stripe.paymentIntents.confirm(intentId, {
      payment_method: "pm_card_authenticationRequired",
      return_url: returnUrl,
    });
    expect(confirmed.next_action).toMatchObject({
      type: "redirect_to_url",
      redirect_to_url: { return_url: returnUrl },
    });
    const hostedPage = confirmed.next_action?.redirect_to_url?.url ?? "";
    expect(await (await fetch(hostedPage)).text()).toContain("Complete authentication");
    const answered = await fetch(hostedPage, {
      method: "POST",
      body: new URLSearchParams({ outcome: "complete" }),
      redirect: "manual",
    });
    expect(answered.status).toBe(303);
    const back = new URL(answered.headers.get("location") ?? "");
    expect(back.origin + back.pathname).toBe(returnUrl);
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");

    // The shopper's browser follows the redirect; the webhook of the same payment arrives around the same time.
    const placed = await browser.send(back.pathname + back.search, { headers: { accept: "text/html" } });
    expect(placed.status).toBe(302);
    const orderPage = placed.headers.get("location");
    expect(orderPage).toMatch(/^\/orders\?placed=SF-\d{4}-[2-9A-Z]{4}$/);
    const delivered = sql<{ count: string }>`select count(*) as count from processor_events
      where type = 'payment_intent.succeeded' and payload like ${`%"id":"${intentId}"%`} and delivered_at is not null`;
    await expect
      .poll(async () => Number((await delivered.execute(getDatabase().db)).rows[0]?.count), { timeout: 5_000 })
      .toBe(1);
    const again = await browser.send(back.pathname + back.search, { headers: { accept: "text/html" } });
    expect(again.headers.get("location")).toBe(orderPage);
    expect(await ordersFor(intentId)).toEqual([{ id: intentId, processor: "built-in", livemode: false }]);
    expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(0);
  });

  it("says a payment whose 3-D Secure failed on the hosted page did not go through, and keeps the basket", async () => {
    const { browser, intentId } = await shopperWithIntent();
    const confirmed = await stripe.paymentIntents.confirm(intentId, {
      payment_method: "pm_card_authenticationRequired",
      return_url: `${origin}/payment/return`,
    });
    const answered = await fetch(confirmed.next_action?.redirect_to_url?.url ?? "", {
      method: "POST",
      body: new URLSearchParams({ outcome: "fail" }),
      redirect: "manual",
    });
    const back = new URL(answered.headers.get("location") ?? "");
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const response = await browser.send(back.pathname + back.search, { headers: { accept: "text/html" } });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Your payment did not go through, so no order was placed.");
    expect(await ordersFor(intentId)).toEqual([]);
    expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(1);
  });

  it("says a failed payment did not go through, places no order and keeps the basket", async () => {
    const { browser, intentId } = await shopperWithIntent();
    await expect(
      stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_chargeDeclined", return_url: RETURN_URL }),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeCardError);
    const response = await returnTo(browser, intentId);
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Your payment did not go through, so no order was placed.");
    expect(await ordersFor(intentId)).toEqual([]);
    expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(1);
  });

  it("shows a processing payment as processing, not failed, and the succeeded event then records the order", async () => {
    const { browser, intentId } = await shopperWithIntent();
    expect(
      await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_processing", return_url: RETURN_URL }),
    ).toMatchObject({ status: "processing" });
    const response = await returnTo(browser, intentId);
    expect(response.status).toBe(202);
    expect(await response.text()).toContain("Your payment is processing; we will e-mail you");
    // The payment page goes there by a client-side navigation: React Router asks for the data with its own `_routes`.
    const navigated = await browser.send(
      `/payment/return.data?payment_intent=${intentId}&_routes=routes%2Fshop-layout%2Croutes%2Fpayment-return`,
    );
    expect(navigated.status).toBe(202);
    expect(await navigated.text()).toContain("Your payment is processing; we will e-mail you");
    const recorded = await browser.postJson("/orders/record", { paymentIntentId: intentId });
    expect(recorded.status).toBe(202);
    expect(await recorded.json()).toMatchObject({
      processing: true,
      message: expect.stringContaining("Your payment is processing; we will e-mail you"),
    });
    expect(await ordersFor(intentId)).toEqual([]);

    await stripe.rawRequest("POST", `/v1/test_helpers/payment_intents/${intentId}/finish_processing`, {
      outcome: "succeed",
    });
    await expect.poll(async () => (await ordersFor(intentId)).length, { timeout: 5_000 }).toBe(1);
    expect((await returnTo(browser, intentId)).status).toBe(302);
  });

  it("finds nothing for another shopper, and records nothing for them", async () => {
    const { intentId } = await shopperWithIntent();
    await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_visa", return_url: RETURN_URL });
    const stranger = createHttpBrowser(origin);
    await stranger.postJson("/basket/add", { productId: BOOK });
    const response = await returnTo(stranger, intentId);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("We could not find that payment.");
    const malformed = await stranger.send("/payment/return?payment_intent=nonsense", {
      headers: { accept: "text/html" },
    });
    expect(malformed.status).toBe(400);
  });

  it("never reuses or hands out an intent the other processor made, after a switch on the same database", async () => {
    const { browser, intentId, clientSecret } = await shopperWithIntent();
    // As if this open intent had been made by Stripe before the operator switched to the built-in processor.
    await getDatabase()
      .db.updateTable("checkout_payments")
      .set({ processor: "stripe" })
      .where("payment_intent_id", "=", intentId)
      .execute();
    const again = await browser.send("/payments/create?total=1196", { method: "POST" });
    expect(again.status).toBe(201);
    const { clientSecret: next } = (await again.json()) as { clientSecret: string };
    expect(next).not.toBe(clientSecret);
    expect((await browser.postJson("/orders/record", { paymentIntentId: intentId })).status).toBe(404);
    const rows = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select(["payment_intent_id", "processor", "livemode"])
      .where("payment_intent_id", "=", next.split("_secret_")[0] ?? "")
      .execute();
    expect(rows).toEqual([{ payment_intent_id: next.split("_secret_")[0], processor: "built-in", livemode: false }]);
  });

  it("marks the order Disputed when the dispute card's charge.dispute.created arrives", async () => {
    const { clientSecret, intentId } = await shopperWithIntent();
    const confirmed = await confirmCard(
      origin,
      clientSecret,
      shop.processorKeys?.publishableKey ?? "",
      "4000000000000259",
    );
    expect(confirmed.body.status).toBe("succeeded");
    await expect.poll(async () => (await ordersFor(intentId)).length, { timeout: 5_000 }).toBe(1);
    const { db } = getDatabase();
    await expect
      .poll(
        async () =>
          (await db.selectFrom("orders").select("status").where("id", "=", intentId).executeTakeFirstOrThrow()).status,
        { timeout: 5_000 },
      )
      .toBe("disputed");
    const history = await db
      .selectFrom("order_status_history")
      .select(["status", "amount_cents", "actor", "note"])
      .where("order_id", "=", intentId)
      .orderBy("id")
      .execute();
    expect(history.map((entry) => entry.status)).toEqual(["paid", "disputed"]);
    expect(history[1]).toMatchObject({
      amount_cents: 1196,
      actor: "processor",
      note: expect.stringMatching(/^fraudulent \(dp_/),
    });
  });
});
