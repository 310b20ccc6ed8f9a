import { afterAll, beforeAll, expect, it } from "vitest";
import Stripe from "stripe";
import { sql } from "kysely";
import { ORDER_NUMBER_PATTERN } from "#shared/orders";
import { describeEachDatabase } from "#server/testing/test-database";
import { startTwoInstances } from "#server/testing/two-instances";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99

describeEachDatabase("checkout over the real Stripe SDK and the built-in processor", (getDatabase) => {
  let origin = "";
  let publishableKey = "";
  let webhookSecret = "";
  let close: () => Promise<void> = async () => {};
  let shop: Awaited<ReturnType<typeof createTestShop>>;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    ({ publishableKey, webhookSecret } = shop.processorKeys!);
  });
  afterAll(() => close());

  const shopperWith = async (...productIds: string[]) => {
    const browser = createHttpBrowser(origin);
    for (const productId of productIds) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  const create = async (browser: ReturnType<typeof createHttpBrowser>, total: number) => {
    const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
    return {
      status: response.status,
      body: (await response.json()) as {
        clientSecret?: string;
        error?: { code: string; message: string; details?: { totalCents?: number } };
      },
    };
  };
  const ordersCount = async () =>
    (await sql<{ count: number }>`select count(*)::int as count from orders`.execute(getDatabase().db)).rows[0]
      ?.count ?? 0;
  const basketCount = async (browser: ReturnType<typeof createHttpBrowser>) =>
    ((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count;

  /**
   * The state a crash right after the charge leaves: charged at the processor, no order, the payment still open
   * (the order the webhook recorded is taken away again, as if it had never been written).
   */
  const paidWithoutOrder = async (productId: string, totalCents: number) => {
    const browser = await shopperWith(productId);
    const { body } = await create(browser, totalCents);
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    const { db } = getDatabase();
    await expect
      .poll(
        async () =>
          (await db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).executeTakeFirst())?.id,
      )
      .toBe(paymentIntentId);
    await db.deleteFrom("orders").where("id", "=", paymentIntentId).execute();
    await db
      .updateTable("checkout_payments")
      .set({ status: "open" })
      .where("payment_intent_id", "=", paymentIntentId)
      .execute();
    return { browser, paymentIntentId };
  };

  it("refuses an empty basket with 400", async () => {
    const browser = createHttpBrowser(origin);
    const { status, body } = await create(browser, 0);
    expect(status).toBe(400);
    expect(body.error?.code).toBe("BASKET_EMPTY");
  });

  it("answers a tampered total with 409 and the real total, creating nothing", async () => {
    const browser = await shopperWith(BOOK, ECHO);
    const before = await sql<{ count: number }>`select count(*)::int as count from checkout_payments`.execute(
      getDatabase().db,
    );
    const { status, body } = await create(browser, 100);
    expect(status).toBe(409);
    expect(body.error?.message).toBe("The total has changed to $110.95. Please check it and pay again.");
    expect(body.error?.details?.totalCents).toBe(11095);
    const after = await sql<{ count: number }>`select count(*)::int as count from checkout_payments`.execute(
      getDatabase().db,
    );
    expect(after.rows[0]?.count).toBe(before.rows[0]?.count);
  });

  it("returns the same intent while the basket is unchanged, and re-prices it when it changes", async () => {
    const browser = await shopperWith(BOOK);
    const first = await create(browser, 1196);
    const again = await create(browser, 1196);
    expect(first.status).toBe(201);
    expect(again.body.clientSecret).toBe(first.body.clientSecret);
    await browser.postJson("/basket/add", { productId: BOOK });
    const changed = await create(browser, 2392);
    expect(changed.status).toBe(201);
    const stored = await getDatabase()
      .db.selectFrom("checkout_payments")
      .select(["amount_cents", "status"])
      .where("client_secret", "=", changed.body.clientSecret ?? "")
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ amount_cents: 2392, status: "open" });
  });

  it("keeps a guest's payment in progress through sign-in: the same intent, now the account's", async () => {
    const browser = await shopperWith(BOOK);
    const asGuest = await create(browser, 1196);
    expect(asGuest.status).toBe(201);
    const email = `adopted-${Date.now()}@example.com`;
    const guestSession = await shop.services.sessions.findSession(
      decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
    );
    expect(guestSession?.user).toBeNull();
    const { token } = await shop.services.signInFlow.signIn(
      { intent: "register", email, password: "a long and unusual passphrase 42" },
      { ip: "127.0.0.1", current: guestSession },
    );
    const signedInBrowser = createHttpBrowser(origin, `${(browser.cookie ?? "").split("=")[0]}=${token}`);
    const signedIn = await create(signedInBrowser, 1196);
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.clientSecret).toBe(asGuest.body.clientSecret);
    const { db } = getDatabase();
    const owner = await db
      .selectFrom("checkout_payments")
      .innerJoin("users", "users.id", "checkout_payments.user_id")
      .select(["users.email", "checkout_payments.session_id", "checkout_payments.status"])
      .where("client_secret", "=", asGuest.body.clientSecret ?? "")
      .executeTakeFirstOrThrow();
    expect(owner).toEqual({ email, session_id: null, status: "open" });
  });

  it("pays with 4242…, records the order exactly once, and empties the basket", async () => {
    const browser = await shopperWith(BOOK, ECHO);
    const { body } = await create(browser, 11095);
    const clientSecret = body.clientSecret ?? "";
    const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
    expect(confirmed.body.status).toBe("succeeded");
    const paymentIntentId = confirmed.body.id ?? "";

    const recorded = await browser.postJson("/orders/record", { paymentIntentId });
    expect(recorded.status).toBe(201);
    expect(await recorded.json()).toEqual({
      orderId: paymentIntentId,
      orderNumber: expect.stringMatching(ORDER_NUMBER_PATTERN),
    });
    const order = await getDatabase()
      .db.selectFrom("orders")
      .selectAll()
      .where("id", "=", paymentIntentId)
      .executeTakeFirstOrThrow();
    expect(order.amount_cents).toBe(11095);
    expect(order.items.map((item) => item.productId)).toEqual([BOOK, ECHO]);
    expect(await basketCount(browser)).toBe(0);

    // Repeats (and the processor's webhook, already on its way) change nothing.
    expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBe(201);
    const rows = await getDatabase().db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).execute();
    expect(rows).toHaveLength(1);
  });

  it("takes only the paid items out of the basket: one added after pricing stays", async () => {
    const browser = await shopperWith(BOOK);
    const { body } = await create(browser, 1196);
    await browser.postJson("/basket/add", { productId: ECHO });
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    expect((await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id })).status).toBe(201);
    const basket = (
      (await (await browser.get("/basket")).json()) as { basket: { items: { product: { id: string } }[] } }
    ).basket;
    expect(basket.items.map((item) => item.product.id)).toEqual([ECHO]);
  });

  it("pays a line of two as two: the order lists the quantity, and a third added after pricing stays in the basket", async () => {
    const browser = await shopperWith(BOOK, BOOK);
    const { body } = await create(browser, 2392);
    await browser.postJson("/basket/add", { productId: BOOK });
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    expect((await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id })).status).toBe(201);
    const order = await getDatabase()
      .db.selectFrom("orders")
      .selectAll()
      .where("id", "=", confirmed.body.id ?? "")
      .executeTakeFirstOrThrow();
    expect(order.amount_cents).toBe(2392);
    expect(order.items.map((item) => [item.productId, item.priceCents, item.quantity])).toEqual([[BOOK, 1196, 2]]);
    const basket = (
      (await (await browser.get("/basket")).json()) as {
        basket: { items: { product: { id: string }; quantity: number }[] };
      }
    ).basket;
    expect(basket.items.map((item) => [item.product.id, item.quantity])).toEqual([[BOOK, 1]]);
  });

  it("records nothing for a declined card, and keeps the basket", async () => {
    const browser = await shopperWith(ECHO);
    const { body } = await create(browser, 9899);
    const declined = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4000000000000002");
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ code: "card_declined", message: "Your card was declined." });
    const intentId = (body.clientSecret ?? "").split("_secret_")[0] ?? "";
    const recorded = await browser.postJson("/orders/record", { paymentIntentId: intentId });
    expect(recorded.status).toBe(409);
    expect(await basketCount(browser)).toBe(1);
    expect(
      await getDatabase().db.selectFrom("orders").select("id").where("id", "=", intentId).executeTakeFirst(),
    ).toBeUndefined();
  });

  it("does not let another shopper record (or learn about) someone else's payment", async () => {
    const payer = await shopperWith(BOOK);
    const { body } = await create(payer, 1196);
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    const stranger = await shopperWith(ECHO);
    const attempt = await stranger.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
    expect(attempt.status).toBe(404);
    expect(await basketCount(stranger)).toBe(1);
  });

  it("leaves one order after 100 concurrent record calls and webhook replays for one intent", async () => {
    const browser = await shopperWith(BOOK, BOOK);
    const { body } = await create(browser, 2392);
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    const intent = await fetch(
      new URL(`/_processor/v1/payment_intents/${paymentIntentId}?client_secret=${body.clientSecret}`, origin),
      {
        headers: { authorization: `Bearer ${publishableKey}` },
      },
    ).then((response) => response.json());
    const replay = async (eventId: string) => {
      const payload = JSON.stringify({
        id: eventId,
        object: "event",
        type: "payment_intent.succeeded",
        created: 1,
        livemode: false,
        data: { object: { ...intent, metadata: { storefront_checkout: "1" } } },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
      return fetch(new URL("/webhooks/stripe", origin), {
        method: "POST",
        body: payload,
        headers: { "content-type": "application/json", "stripe-signature": signature },
      });
    };
    const calls = [
      ...Array.from({ length: 100 }, () => browser.postJson("/orders/record", { paymentIntentId })),
      ...Array.from({ length: 10 }, (_, i) => replay(`evt_replay_${paymentIntentId}_${i % 3}`)),
    ];
    const statuses = (await Promise.all(calls)).map((response) => response.status);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    const rows = await getDatabase().db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).execute();
    expect(rows).toHaveLength(1);
  });

  it("refuses a webhook with a bad signature, and ignores events for intents the shop did not create", async () => {
    const payload = JSON.stringify({
      id: "evt_forged",
      object: "event",
      type: "payment_intent.succeeded",
      data: { object: { id: "pi_forged", object: "payment_intent", metadata: {} } },
    });
    const forged = await fetch(new URL("/webhooks/stripe", origin), {
      method: "POST",
      body: payload,
      headers: { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_wrong" }) },
    });
    expect(forged.status).toBe(400);
    const stale = await fetch(new URL("/webhooks/stripe", origin), {
      method: "POST",
      body: payload,
      headers: {
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: webhookSecret,
          timestamp: Math.floor(Date.now() / 1000) - 3600,
        }),
      },
    });
    expect(stale.status).toBe(400);
    const before = await ordersCount();
    const foreign = await fetch(new URL("/webhooks/stripe", origin), {
      method: "POST",
      body: payload,
      headers: { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }) },
    });
    expect(foreign.status).toBe(200);
    expect(await foreign.json()).toMatchObject({ outcome: "ignored" });
    expect(await ordersCount()).toBe(before);
  });

  it("records a paid order from the processor's own webhook when the browser never reports back", async () => {
    const browser = await shopperWith(ECHO);
    const { body } = await create(browser, 9899);
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    await expect
      .poll(
        async () =>
          (
            await getDatabase()
              .db.selectFrom("orders")
              .select("id")
              .where("id", "=", paymentIntentId)
              .executeTakeFirst()
          )?.id,
        { timeout: 10_000 },
      )
      .toBe(paymentIntentId);
    expect(await basketCount(browser)).toBe(0);
  });

  it("answers a guest's payment as recorded to the account it joined at sign-in, after the webhook recorded it", async () => {
    const browser = await shopperWith(ECHO);
    const { body } = await create(browser, 9899);
    const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    const { db } = getDatabase();
    const paymentOf = () =>
      db
        .selectFrom("checkout_payments")
        .select(["status", "session_id"])
        .where("payment_intent_id", "=", paymentIntentId)
        .executeTakeFirst();
    await expect.poll(async () => (await paymentOf())?.status, { timeout: 10_000 }).toBe("paid");
    const sessionId = (await paymentOf())?.session_id ?? "";
    const { checkout, accounts } = shop.services;
    expect(await checkout.recordOrder(paymentIntentId, { sessionId })).toMatchObject({ kind: "recorded" });

    // The guest signs in: the payment is the account's now, and no longer the session's.
    const user = await accounts.register(
      `joined-${Date.now()}@example.com`,
      "a long and unusual passphrase 42",
      "127.0.0.1",
    );
    await checkout.adoptGuestPayments(sessionId, user.id);
    expect(await checkout.recordOrder(paymentIntentId, { userId: user.id })).toMatchObject({
      kind: "recorded",
      orderId: paymentIntentId,
      isNew: false,
    });
    expect(await checkout.recordOrder(paymentIntentId, { sessionId })).toBeNull();
  });

  it("records, at the next start, a payment charged while no server recorded it (a crash between charge and record)", async () => {
    const { browser, paymentIntentId } = await paidWithoutOrder(BOOK, 1196);
    const { db } = getDatabase();
    // ...with the basket still full and the processor's webhook already spent.
    await browser.postJson("/basket/add", { productId: BOOK });
    await db.insertInto("processed_webhook_events").values({ id: "evt_spent", type: "payment-succeeded" }).execute();

    // A new instance starts on the same database: its start-up sweep asks the processor and records the order.
    const restarted = await (await createTestShop(getDatabase())).listen(0);
    try {
      await expect
        .poll(
          async () =>
            (await db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).executeTakeFirst())?.id,
          { timeout: 10_000 },
        )
        .toBe(paymentIntentId);
      expect(await basketCount(browser)).toBe(0);
    } finally {
      await restarted.close();
    }
  });

  it("the start-up sweep reaches a missed payment behind 600 newer open intents", async () => {
    const { paymentIntentId } = await paidWithoutOrder(ECHO, 9899);
    const { db } = getDatabase();
    // An hour older than 600 other open payments (abandoned ones the processor has never heard of).
    await db
      .updateTable("checkout_payments")
      .set({ updated_at: sql`now() - interval '1 hour'` })
      .where("payment_intent_id", "=", paymentIntentId)
      .execute();
    const abandoned = Array.from({ length: 600 }, (_, index) => `pi_abandoned_${String(index).padStart(4, "0")}`);
    await db
      .insertInto("checkout_payments")
      .values(
        abandoned.map((id) => ({
          payment_intent_id: id,
          user_id: null,
          session_id: null,
          client_secret: `${id}_secret_x`,
          amount_cents: 100,
          currency: "usd",
          basket_fingerprint: "abandoned",
          items: JSON.stringify([]),
          status: "open" as const,
        })),
      )
      .execute();
    // A new instance's start-up sweep asks about every one of them.
    const restarted = await (await createTestShop(getDatabase())).listen(0);
    try {
      await expect
        .poll(
          async () =>
            (await db.selectFrom("orders").select("id").where("id", "=", paymentIntentId).executeTakeFirst())?.id,
          { timeout: 20_000 },
        )
        .toBe(paymentIntentId);
    } finally {
      await restarted.close();
      await db.deleteFrom("checkout_payments").where("payment_intent_id", "in", abandoned).execute();
    }
  });
});

if (process.env.TEST_DATABASE_URL) {
  it("two server instances on one PostgreSQL: 100 record calls and webhook replays spread over both leave one order", async () => {
    const instances = await startTwoInstances("two");
    try {
      const [a, b] = instances.origins;
      const { publishableKey, webhookSecret: secret } = instances.keys;
      // The shopper's requests land on either instance (a load balancer without stickiness).
      const onA = createHttpBrowser(a);
      expect((await onA.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
      await addDeliveryAddress(onA);
      const cookie = onA.cookie ?? "";
      const created = await fetch(`${b}/payments/create?total=9899`, { method: "POST", headers: { cookie } });
      expect(created.status).toBe(201);
      const { clientSecret } = (await created.json()) as { clientSecret: string };
      const confirmed = await confirmCard(a, clientSecret, publishableKey, "4242424242424242");
      expect(confirmed.body.status).toBe("succeeded");
      const record = (origin: string) =>
        fetch(`${origin}/orders/record`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: JSON.stringify({ paymentIntentId: confirmed.body.id }),
        }).then((response) => response.status);
      const intent = await fetch(
        `${a}/_processor/v1/payment_intents/${confirmed.body.id}?client_secret=${clientSecret}`,
        {
          headers: { authorization: `Bearer ${publishableKey}` },
        },
      ).then((response) => response.json());
      const replay = (origin: string, eventId: string) => {
        const payload = JSON.stringify({
          id: eventId,
          object: "event",
          type: "payment_intent.succeeded",
          created: 1,
          livemode: false,
          data: { object: { ...intent, metadata: { storefront_checkout: "1" } } },
        });
        return fetch(`${origin}/webhooks/stripe`, {
          method: "POST",
          body: payload,
          headers: {
            "content-type": "application/json",
            "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret }),
          },
        }).then((response) => response.status);
      };
      const statuses = await Promise.all([
        ...Array.from({ length: 100 }, (_, i) => record(i % 2 ? a : b)),
        ...Array.from({ length: 20 }, (_, i) => replay(i % 2 ? a : b, `evt_two_${i % 4}`)),
      ]);
      expect(statuses.every((status) => status === 201 || status === 200)).toBe(true);
      const orders = await instances.db.selectFrom("orders").select("id").execute();
      expect(orders.map((order) => order.id)).toEqual([confirmed.body.id]);
    } finally {
      await instances.close();
    }
  });
}
