import { expect, it } from "vitest";
import Stripe from "stripe";
import { describeEachDatabase } from "#server/testing/test-database";
import { createTestShop } from "#server/testing/test-app";

const stripeKeys = {
  secretKey: "sk_test_offline",
  publishableKey: "pk_test_offline",
  webhookSecret: "whsec_offline_test_secret",
};

/** The webhook route in Stripe mode, with events signed by the SDK's own test helper: no network needed. */
describeEachDatabase("Stripe-mode webhooks", (getDatabase) => {
  const post = async (payload: string, signature: string) => {
    const { app } = await createTestShop(getDatabase(), { stripe: stripeKeys });
    return app.request("http://shop.test/webhooks/stripe", {
      method: "POST",
      body: payload,
      headers: { host: "shop.test", "content-type": "application/json", "stripe-signature": signature },
    });
  };
  const event = (id: string, type: string, metadata: Record<string, string> = {}, intentId = "pi_elsewhere") =>
    JSON.stringify({
      id,
      object: "event",
      type,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: {
        object: {
          id: intentId,
          object: "payment_intent",
          amount: 1196,
          currency: "usd",
          status: "succeeded",
          created: 1,
          metadata,
        },
      },
    });
  const sign = (payload: string, secret = stripeKeys.webhookSecret, timestamp?: number) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });

  it("accepts a well-signed event and ignores one for an intent the shop did not create", async () => {
    const payload = event(`evt_foreign_${Date.now()}`, "payment_intent.succeeded");
    const response = await post(payload, sign(payload));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, outcome: "ignored" });
  });

  it("refuses a bad signature, another secret's signature and a stale one", async () => {
    const payload = event("evt_bad", "payment_intent.succeeded");
    expect((await post(payload, "t=1,v1=deadbeef")).status).toBe(400);
    expect((await post(payload, sign(payload, "whsec_someone_else"))).status).toBe(400);
    expect(
      (await post(payload, sign(payload, stripeKeys.webhookSecret, Math.floor(Date.now() / 1000) - 600))).status,
    ).toBe(400);
    // A body altered after signing.
    expect((await post(payload.replace("usd", "eur"), sign(payload))).status).toBe(400);
  });

  it("acknowledges a repeated event without acting on it again", async () => {
    const payload = event(`evt_repeat_${Date.now()}`, "charge.refunded");
    const first = await post(payload, sign(payload));
    const again = await post(payload, sign(payload));
    expect(await first.json()).toEqual({ received: true, outcome: "ignored" });
    expect(await again.json()).toEqual({ received: true, outcome: "already-processed" });
  });

  it("ignores a succeeded event for one of 'our' intents it has no record of", async () => {
    const payload = event(`evt_unknown_${Date.now()}`, "payment_intent.succeeded", { storefront_checkout: "1" });
    const response = await post(payload, sign(payload));
    expect(await response.json()).toEqual({ received: true, outcome: "ignored" });
  });

  it("records the order from a signed succeeded event alone: Stripe need not be asked again (here it cannot be)", async () => {
    const { db } = getDatabase();
    const intentId = `pi_signed_${Date.now()}`;
    const session = await db
      .insertInto("sessions")
      .values({ token_hash: `hash_${intentId}`, expires_at: new Date(Date.now() + 3_600_000), user_id: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    const items = [
      {
        productId: "12321341",
        title: "Echo Dot",
        priceCents: 1196,
        rating: 4,
        image: { src: "/images/products/12321341.webp", width: 400, height: 400 },
      },
    ];
    await db
      .insertInto("checkout_payments")
      .values({
        payment_intent_id: intentId,
        user_id: null,
        session_id: session.id,
        client_secret: `${intentId}_secret_x`,
        amount_cents: 1196,
        currency: "usd",
        basket_fingerprint: "fingerprint",
        items: JSON.stringify(items),
        status: "open",
      })
      .execute();
    const payload = event(
      `evt_paid_${Date.now()}`,
      "payment_intent.succeeded",
      { storefront_checkout: "1", session_id: session.id },
      intentId,
    );
    const response = await post(payload, sign(payload));
    expect(await response.json()).toEqual({ received: true, outcome: "recorded" });
    const order = await db
      .selectFrom("orders")
      .select(["amount_cents", "session_id"])
      .where("id", "=", intentId)
      .executeTakeFirst();
    expect(order).toEqual({ amount_cents: 1196, session_id: session.id });
    const payment = await db
      .selectFrom("checkout_payments")
      .select("status")
      .where("payment_intent_id", "=", intentId)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe("paid");

    // Delivered again (a retry, or Stripe's at-least-once): the order is found under its key, nothing is written twice.
    const again = await post(payload, sign(payload));
    expect(await again.json()).toEqual({ received: true, outcome: "recorded" });
    const orders = await db.selectFrom("orders").select("id").where("id", "=", intentId).execute();
    expect(orders).toHaveLength(1);
  });
});
