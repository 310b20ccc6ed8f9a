import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppError } from "#shared/errors";
import type { DB } from "#server/db/client";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { startTwoInstances } from "#server/testing/two-instances";
import { webhooksDelivered } from "#server/testing/processor-webhooks";

const BOOK = "12321341"; // $11.96
const OPERATOR = { id: null, email: "owner@console.test" };
let counter = 0;
const newKey = () => `key-${Date.now()}-${++counter}`;

/** A guest pays for two books ($23.92) through the real checkout: the SDK, the built-in processor, the card over HTTP. */
async function payForTwoBooks(origin: string, publishableKey: string): Promise<string> {
  const browser = createHttpBrowser(origin);
  expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
  expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 2 })).status).toBeLessThan(300);
  await addDeliveryAddress(browser);
  const created = await browser.send("/payments/create?total=2392", { method: "POST" });
  const { clientSecret } = (await created.json()) as { clientSecret: string };
  const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
  const paymentIntentId = confirmed.body.id ?? "";
  expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
  return paymentIntentId;
}

async function orderState(db: DB, orderId: string) {
  const order = await db
    .selectFrom("orders")
    .select(["number", "status", "refunded_cents"])
    .where("id", "=", orderId)
    .executeTakeFirstOrThrow();
  const refunds = await db
    .selectFrom("order_refunds")
    .select(["id", "amount_cents", "actor"])
    .where("order_id", "=", orderId)
    .orderBy("created_at")
    .execute();
  const emails = await db
    .selectFrom("email_outbox")
    .select("subject")
    .where("kind", "=", "order-refunded")
    .where("dedupe_key", "in", refunds.length ? refunds.map((refund) => `order-refunded:${refund.id}`) : ["none"])
    .execute();
  const audit = await db
    .selectFrom("audit_log")
    .select(["action", "operator_email"])
    .where("subject", "=", order.number)
    .where("action", "=", "order.refund")
    .execute();
  return { ...order, refunds, emails: emails.length, audits: audit.length };
}

/**
 * The console's refunds through the Stripe SDK on the built-in processor, over HTTP: full, partial, above what is
 * left, the same request twice and many at once; the processor's refund webhooks (delivered by the processor as it
 * would) record nothing twice.
 */
describeEachDatabase("refunds from the console", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  /** The processor's refund webhooks have all reached the shop (which records nothing twice). */
  const settle = () => webhooksDelivered(getDatabase().db);

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(() => close());

  const pay = () => payForTwoBooks(origin, shop.processorKeys!.publishableKey);
  const numberOf = async (orderId: string) => (await shop.services.orders.findOrderNumber(orderId)) ?? "";

  it("refunds everything left by default: Refunded, one refund at the processor, one e-mail, one audit entry, even after the webhooks", async () => {
    const orderId = await pay();
    const { adminOrders, provider } = shop.services;
    const result = await adminOrders.refund(OPERATOR, await numberOf(orderId), {
      amountCents: null,
      idempotencyKey: newKey(),
    });
    expect(result.amountCents).toBe(2392);
    await settle();
    const state = await orderState(getDatabase().db, orderId);
    expect(state).toMatchObject({ status: "refunded", refunded_cents: 2392, emails: 1, audits: 1 });
    expect(state.refunds).toEqual([{ id: result.refundId, amount_cents: 2392, actor: OPERATOR.email }]);
    expect((await provider.listRefunds(orderId)).map((refund) => refund.amountCents)).toEqual([2392]);
    await expect(
      adminOrders.refund(OPERATOR, state.number, { amountCents: 1, idempotencyKey: newKey() }),
    ).rejects.toMatchObject({ message: "This order has already been refunded." });
  });

  it("refunds part, then refuses more than is left with the amount that is", async () => {
    const orderId = await pay();
    const number = await numberOf(orderId);
    const { adminOrders, provider } = shop.services;
    await adminOrders.refund(OPERATOR, number, { amountCents: 500, idempotencyKey: newKey() });
    expect(await orderState(getDatabase().db, orderId)).toMatchObject({
      status: "partially_refunded",
      refunded_cents: 500,
    });
    await expect(
      adminOrders.refund(OPERATOR, number, { amountCents: 1893, idempotencyKey: newKey() }),
    ).rejects.toMatchObject({ message: "You can refund at most $18.92." });
    await adminOrders.refund(OPERATOR, number, { amountCents: 1892, idempotencyKey: newKey() });
    await settle();
    expect(await orderState(getDatabase().db, orderId)).toMatchObject({
      status: "refunded",
      refunded_cents: 2392,
      emails: 2,
      audits: 2,
    });
    expect((await provider.listRefunds(orderId)).map((refund) => refund.amountCents).sort()).toEqual([1892, 500]);
  });

  it("refunds once for the same form sent twice, one after the other and five at once", async () => {
    const orderId = await pay();
    const number = await numberOf(orderId);
    const { adminOrders, provider } = shop.services;
    const key = newKey();
    const first = await adminOrders.refund(OPERATOR, number, { amountCents: 700, idempotencyKey: key });
    const again = await adminOrders.refund(OPERATOR, number, { amountCents: 700, idempotencyKey: key });
    expect(again.refundId).toBe(first.refundId);
    const burstKey = newKey();
    const burst = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        adminOrders.refund(OPERATOR, number, { amountCents: 300, idempotencyKey: burstKey }),
      ),
    );
    const made = new Set(burst.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value.refundId] : [])));
    expect(made.size).toBe(1);
    await settle();
    expect(await orderState(getDatabase().db, orderId)).toMatchObject({
      status: "partially_refunded",
      refunded_cents: 1000,
      emails: 2,
    });
    expect((await provider.listRefunds(orderId)).map((refund) => refund.amountCents).sort()).toEqual([300, 700]);
  });

  it("never refunds more than was paid when different refunds race, and records exactly what the processor gave back", async () => {
    const orderId = await pay();
    const number = await numberOf(orderId);
    const { adminOrders, provider } = shop.services;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        adminOrders.refund(OPERATOR, number, { amountCents: 500, idempotencyKey: newKey() }),
      ),
    );
    const succeeded = outcomes.filter((outcome) => outcome.status === "fulfilled").length;
    expect(succeeded).toBeLessThanOrEqual(4);
    expect(succeeded).toBeGreaterThanOrEqual(1);
    await settle();
    const atProcessor = (await provider.listRefunds(orderId)).reduce((sum, refund) => sum + refund.amountCents, 0);
    expect(atProcessor).toBeLessThanOrEqual(2392);
    const state = await orderState(getDatabase().db, orderId);
    expect(state.refunded_cents).toBe(atProcessor);
    expect(state.refunds).toHaveLength(atProcessor / 500);
    expect(state.emails).toBe(atProcessor / 500);
  });

  it("tells the operator who lost a race of two refunds that the order is refunded already, or what is left, not that the processor failed", async () => {
    const { adminOrders } = shop.services;
    const whole = await numberOf(await pay());
    const outcomes = await Promise.allSettled([
      adminOrders.refund(OPERATOR, whole, { amountCents: null, idempotencyKey: newKey() }),
      adminOrders.refund(OPERATOR, whole, { amountCents: null, idempotencyKey: newKey() }),
    ]);
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    for (const { reason } of lost) {
      expect((reason as AppError).message).toBe("This order has already been refunded.");
      expect((reason as AppError).status).toBe(400);
    }
    const part = await numberOf(await pay());
    const partial = await Promise.allSettled([
      adminOrders.refund(OPERATOR, part, { amountCents: 2000, idempotencyKey: newKey() }),
      adminOrders.refund(OPERATOR, part, { amountCents: 2000, idempotencyKey: newKey() }),
    ]);
    for (const outcome of partial) {
      if (outcome.status === "rejected")
        expect((outcome.reason as AppError).message).toBe("You can refund at most $3.92.");
    }
    expect(
      lost.length + partial.filter((outcome) => outcome.status === "rejected").length,
      "a race was lost at the processor",
    ).toBeGreaterThan(0);
    await settle();
  });

  it("cancels and refunds everything, once however often the form is sent, and then refuses to ship", async () => {
    const orderId = await pay();
    const number = await numberOf(orderId);
    const { adminOrders, provider } = shop.services;
    const key = newKey();
    const [first, second] = await Promise.all([
      adminOrders.cancelAndRefund(OPERATOR, number, key),
      adminOrders.cancelAndRefund(OPERATOR, number, key),
    ]);
    // Both answer as the one that did the work: the same refund.
    expect(second.refundId).toBe(first.refundId);
    await settle();
    expect(await orderState(getDatabase().db, orderId)).toMatchObject({
      status: "refunded",
      refunded_cents: 2392,
      emails: 1,
      audits: 1,
    });
    expect((await provider.listRefunds(orderId)).map((refund) => refund.amountCents)).toEqual([2392]);
    const history = await getDatabase()
      .db.selectFrom("order_status_history")
      .select("status")
      .where("order_id", "=", orderId)
      .orderBy("id")
      .execute();
    expect(history.map((entry) => entry.status)).toEqual(["paid", "cancelled", "refunded"]);
    await expect(
      adminOrders.markShipped(OPERATOR, number, { carrier: "UPS", trackingNumber: "1Z" }),
    ).rejects.toMatchObject({ code: "ORDER_TRANSITION_REFUSED" });
  });

  it("records a refund made outside the console from the processor's webhooks, as the processor's", async () => {
    const orderId = await pay();
    const { provider } = shop.services;
    await provider.createRefund({ paymentIntentId: orderId, amountCents: 392, idempotencyKey: newKey(), metadata: {} });
    await expect
      .poll(async () => (await orderState(getDatabase().db, orderId)).refunded_cents, { timeout: 10_000 })
      .toBe(392);
    await settle();
    expect(await orderState(getDatabase().db, orderId)).toMatchObject({
      status: "partially_refunded",
      refunded_cents: 392,
      emails: 1,
      audits: 1,
      refunds: [{ amount_cents: 392, actor: "processor" }],
    });
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("refund webhooks on two instances (PostgreSQL)", () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    instances = await startTwoInstances("refunds");
  }, 60_000);
  afterAll(() => instances.close());

  it("records a refund once when its refund.updated and charge.refunded events reach both instances many times at once", async () => {
    const [first, second] = instances.origins;
    const orderId = await payForTwoBooks(first, instances.keys.publishableKey);
    // Made at the processor directly, as from its dashboard: only the webhooks can tell the shop.
    const refund = await instances.shops[0]!.services.provider.createRefund({
      paymentIntentId: orderId,
      amountCents: 1000,
      idempotencyKey: newKey(),
      metadata: {},
    });
    const send = (origin: string, eventId: string, type: "refund.updated" | "charge.refunded") => {
      const object =
        type === "refund.updated"
          ? {
              id: refund.id,
              object: "refund",
              amount: 1000,
              currency: "usd",
              payment_intent: orderId,
              status: "succeeded",
              metadata: {},
            }
          : {
              id: `ch_for_${orderId}`,
              object: "charge",
              amount: 2392,
              amount_refunded: 1000,
              payment_intent: orderId,
              refunded: false,
            };
      const payload = JSON.stringify({
        id: eventId,
        object: "event",
        type,
        created: 1,
        livemode: false,
        data: { object },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: instances.keys.webhookSecret });
      return fetch(new URL("/webhooks/stripe", origin), {
        method: "POST",
        body: payload,
        headers: { "content-type": "application/json", "stripe-signature": signature },
      });
    };
    const calls = Array.from({ length: 40 }, (_, i) =>
      send(i % 2 ? first : second, `evt_refund_race_${orderId}_${i}`, i % 3 ? "refund.updated" : "charge.refunded"),
    );
    const statuses = (await Promise.all(calls)).map((response) => response.status);
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
    await webhooksDelivered(instances.db);
    expect(await orderState(instances.db, orderId)).toMatchObject({
      status: "partially_refunded",
      refunded_cents: 1000,
      emails: 1,
      audits: 1,
      refunds: [{ id: refund.id, amount_cents: 1000 }],
    });
  }, 60_000);
});
