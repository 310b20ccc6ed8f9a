import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "#server/db/client";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { startTwoInstances } from "#server/testing/two-instances";
import { webhooksDelivered } from "#server/testing/processor-webhooks";

/**
 * Refunds per line with exact restocks, through the real checkout and the built-in processor: what a refund gives back
 * per unit, what goes back in stock (never more than was sold, however the refunds come), cancellation's restock, and
 * an order's payment and fulfilment statuses apart (a partly refunded order that was never sent is still to ship).
 */

const BOOK = "12321341"; // $11.96, its only variant's id is the product's
const ECHO = "23445930"; // $98.99
const OPERATOR = { id: null, email: "owner@console.test" };
let counter = 0;
const newKey = () => `refund-lines-${Date.now()}-${++counter}`;

/** A guest buys these lines through the real checkout, paying `totalCents`; the order's id (its intent's). */
async function buyLines(
  origin: string,
  publishableKey: string,
  lines: { productId: string; quantity: number }[],
  totalCents: number,
): Promise<string> {
  const browser = createHttpBrowser(origin);
  for (const { productId, quantity } of lines) {
    expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    if (quantity > 1)
      expect((await browser.postJson("/basket/quantity", { productId, quantity })).status).toBeLessThan(300);
  }
  await addDeliveryAddress(browser);
  const created = await browser.send(`/payments/create?total=${totalCents}`, { method: "POST" });
  expect(created.status).toBe(201);
  const { clientSecret } = (await created.json()) as { clientSecret: string };
  const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
  const paymentIntentId = confirmed.body.id ?? "";
  expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
  return paymentIntentId;
}

/** A guest buys `quantity` books; the order's id. */
const buyBooks = (origin: string, publishableKey: string, quantity: number) =>
  buyLines(origin, publishableKey, [{ productId: BOOK, quantity }], 1196 * quantity);

async function onHand(db: DB): Promise<number> {
  const row = await db
    .selectFrom("product_variants")
    .select("on_hand")
    .where("id", "=", BOOK)
    .executeTakeFirstOrThrow();
  return row.on_hand;
}

async function statuses(db: DB, orderId: string) {
  return db
    .selectFrom("orders")
    .select(["payment_status", "fulfilment_status", "refunded_cents"])
    .where("id", "=", orderId)
    .executeTakeFirstOrThrow();
}

describeEachDatabase("refunds per line", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const db = () => getDatabase().db;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(() => close());

  const buy = (quantity: number) => buyBooks(origin, shop.processorKeys!.publishableKey, quantity);
  const numberOf = async (orderId: string) => (await shop.services.orders.findOrderNumber(orderId)) ?? "";
  const setStock = (quantity: number) =>
    db()
      .transaction()
      .execute((trx) =>
        shop.services.inventory.setStock(
          trx,
          BOOK,
          { tracksStock: true, continueSelling: false, onHand: quantity },
          OPERATOR.email,
        ),
      );

  it("three $0.01 refunds of a 1-unit order with its item back in stock put back one, not three", async () => {
    await setStock(1);
    const orderId = await buy(1);
    const number = await numberOf(orderId);
    expect(await onHand(db())).toBe(0);
    const { adminOrders } = shop.services;

    // The first names the line and asks for it back in stock: the unit goes back, once.
    await adminOrders.refund(OPERATOR, number, {
      amountCents: 1,
      idempotencyKey: newKey(),
      lines: [{ index: 0, quantity: 1, restock: true }],
    });
    expect(await onHand(db())).toBe(1);
    // The same line again: it has been refunded already, so nothing is made and nothing comes back.
    await expect(
      adminOrders.refund(OPERATOR, number, {
        amountCents: 1,
        idempotencyKey: newKey(),
        lines: [{ index: 0, quantity: 1, restock: true }],
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining("has been refunded already") });
    // By amount alone (goodwill): money only, never stock.
    await adminOrders.refund(OPERATOR, number, { amountCents: 1, idempotencyKey: newKey() });
    await adminOrders.refund(OPERATOR, number, { amountCents: 1, idempotencyKey: newKey() });
    expect(await onHand(db())).toBe(1);
    expect(await statuses(db(), orderId)).toEqual({
      payment_status: "partially_refunded",
      fulfilment_status: "unfulfilled",
      refunded_cents: 3,
    });
    const ledger = await db()
      .selectFrom("stock_ledger")
      .select(["quantity_before", "quantity_after"])
      .where("variant_id", "=", BOOK)
      .where("reason", "=", "restock")
      .where("reference", "=", orderId)
      .execute();
    expect(ledger).toEqual([{ quantity_before: 0, quantity_after: 1 }]);
  });

  it("refunds units one at a time at their price, restocks each once, and the last one brings the order to Refunded", async () => {
    await setStock(3);
    const orderId = await buy(3);
    const number = await numberOf(orderId);
    expect(await onHand(db())).toBe(0);
    const { adminOrders } = shop.services;
    const one = { index: 0, quantity: 1, restock: true };
    const quote = await adminOrders.quoteRefund(number, { amountCents: null, lines: [one] });
    expect(quote).toMatchObject({ amountCents: 1196, ceilingCents: 1196 });
    // Never up: more than the line comes to is refused, and nothing is refunded.
    await expect(
      adminOrders.refund(OPERATOR, number, { amountCents: 1197, idempotencyKey: newKey(), lines: [one] }),
    ).rejects.toMatchObject({ message: "You can refund at most $11.96." });
    for (let unit = 1; unit <= 3; unit++) {
      const made = await adminOrders.refund(OPERATOR, number, {
        amountCents: null,
        idempotencyKey: newKey(),
        lines: [one],
      });
      expect(made.amountCents).toBe(1196);
      expect(await onHand(db())).toBe(unit);
    }
    await expect(
      adminOrders.refund(OPERATOR, number, { amountCents: null, idempotencyKey: newKey(), lines: [one] }),
    ).rejects.toMatchObject({ message: "This order has already been refunded." });
    expect(await onHand(db())).toBe(3);
    expect(await statuses(db(), orderId)).toMatchObject({ payment_status: "refunded", refunded_cents: 3588 });
    const lines = await db()
      .selectFrom("order_refund_lines")
      .select(["line_index", "quantity", "amount_cents"])
      .where("order_id", "=", orderId)
      .execute();
    expect(lines).toEqual([1, 2, 3].map(() => ({ line_index: 0, quantity: 1, amount_cents: 1196 })));

    // The shopper's e-mail names the lines; the audit log has every refund with its lines and restock.
    const refundIds = (
      await db().selectFrom("order_refunds").select("id").where("order_id", "=", orderId).execute()
    ).map((refund) => `order-refunded:${refund.id}`);
    const mail = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("dedupe_key", "in", refundIds)
      .execute();
    expect(mail).toHaveLength(3);
    for (const { text_body } of mail) {
      expect(text_body).toContain("Your refund of $11.96");
      expect(text_body).toMatch(/1 × The Lean Startup/);
    }
    const audit = await db()
      .selectFrom("audit_log")
      .select("after")
      .where("subject", "=", number)
      .where("action", "=", "order.refund")
      .execute();
    expect(audit).toHaveLength(3);
    expect(audit[0]!.after).toMatchObject({
      amount: "$11.96",
      lines: [{ quantity: 1, amount: "$11.96" }],
      restocked: [{ quantity: 1 }],
    });
  });

  it("an amount edited down shares itself over the lines; the refund by amount alone stays possible", async () => {
    await setStock(2);
    const orderId = await buy(2);
    const number = await numberOf(orderId);
    await shop.services.adminOrders.refund(OPERATOR, number, {
      amountCents: 1000,
      idempotencyKey: newKey(),
      lines: [{ index: 0, quantity: 2, restock: false }],
    });
    expect(await onHand(db())).toBe(0);
    expect(
      await db()
        .selectFrom("order_refund_lines")
        .select(["quantity", "amount_cents"])
        .where("order_id", "=", orderId)
        .execute(),
    ).toEqual([{ quantity: 2, amount_cents: 1000 }]);
    // Both units are refunded: what is left can still go back by amount alone.
    const rest = await shop.services.adminOrders.refund(OPERATOR, number, {
      amountCents: null,
      idempotencyKey: newKey(),
    });
    expect(rest.amountCents).toBe(2392 - 1000);
    expect(await statuses(db(), orderId)).toMatchObject({
      payment_status: "refunded",
      fulfilment_status: "unfulfilled",
    });
  });

  it("a partly refunded order that was never sent is still to ship: the Paid filter, the dashboard's count, and Mark as shipped", async () => {
    await setStock(2);
    const orderId = await buy(2);
    const number = await numberOf(orderId);
    await shop.services.adminOrders.refund(OPERATOR, number, {
      amountCents: null,
      idempotencyKey: newKey(),
      lines: [{ index: 0, quantity: 1, restock: false }],
    });
    expect(await statuses(db(), orderId)).toMatchObject({
      payment_status: "partially_refunded",
      fulfilment_status: "unfulfilled",
    });
    const toShip = await shop.services.adminOrders.listOrders({ status: "paid", search: number });
    expect(toShip.orders.map((order) => order.number)).toEqual([number]);
    const before = (await shop.services.salesDashboard.getDashboard({ period: "today" })).counts.toShip;
    await shop.services.adminOrders.markShipped(OPERATOR, number, { carrier: "UPS", trackingNumber: "1Z999" });
    expect((await shop.services.salesDashboard.getDashboard({ period: "today" })).counts.toShip).toBe(before - 1);
    expect(await statuses(db(), orderId)).toMatchObject({
      payment_status: "partially_refunded",
      fulfilment_status: "shipped",
    });
    expect((await shop.services.adminOrders.listOrders({ status: "paid", search: number })).orders).toEqual([]);
    expect(
      (await shop.services.adminOrders.listOrders({ status: "partially_refunded", search: number })).orders,
    ).toHaveLength(1);
  });

  it("Cancel and refund puts every unit back in stock once, when asked, and refunds the lines and shipping", async () => {
    await setStock(2);
    const orderId = await buy(2);
    const number = await numberOf(orderId);
    expect(await onHand(db())).toBe(0);
    const key = newKey();
    const sent = await Promise.allSettled(
      [1, 2, 3].map(() => shop.services.adminOrders.cancelAndRefund(OPERATOR, number, key, { restock: true })),
    );
    expect(sent.some((outcome) => outcome.status === "fulfilled")).toBe(true);
    expect(await onHand(db())).toBe(2);
    expect(await statuses(db(), orderId)).toEqual({
      payment_status: "refunded",
      fulfilment_status: "cancelled",
      refunded_cents: 2392,
    });
    expect(
      await db()
        .selectFrom("order_restocks")
        .select(["line_index", "quantity", "cause"])
        .where("order_id", "=", orderId)
        .execute(),
    ).toEqual([{ line_index: 0, quantity: 2, cause: "cancel" }]);
    // A cancelled order cannot be sent.
    await expect(
      shop.services.adminOrders.markShipped(OPERATOR, number, { carrier: "UPS", trackingNumber: "1Z" }),
    ).rejects.toMatchObject({ message: `Order ${number} is cancelled, so it cannot be shipped.` });
  });

  it("Cancel and refund after a unit went back for less than it came to still gives back everything left", async () => {
    await setStock(3);
    const orderId = await buy(3);
    const number = await numberOf(orderId);
    await shop.services.adminOrders.refund(OPERATOR, number, {
      amountCents: 100,
      idempotencyKey: newKey(),
      lines: [{ index: 0, quantity: 1, restock: true }],
    });
    const cancelled = await shop.services.adminOrders.cancelAndRefund(OPERATOR, number, newKey(), { restock: true });
    expect(cancelled.amountCents).toBe(3588 - 100);
    expect(await statuses(db(), orderId)).toEqual({
      payment_status: "refunded",
      fulfilment_status: "cancelled",
      refunded_cents: 3588,
    });
    // One unit went back with the refund, the other two with the cancellation: three in all, as sold.
    expect(await onHand(db())).toBe(3);
  });

  it("a $0.00 order can be cancelled with its items back in stock", async () => {
    await setStock(1);
    const orderId = await buy(1);
    const number = await numberOf(orderId);
    // As a promotion that covered all of it would leave it: nothing was charged, nothing is left to refund.
    await db().updateTable("orders").set({ amount_cents: 0, processor: "none" }).where("id", "=", orderId).execute();
    const cancelled = await shop.services.adminOrders.cancelAndRefund(OPERATOR, number, newKey(), { restock: true });
    expect(cancelled).toEqual({ refundId: null, amountCents: 0 });
    expect(await onHand(db())).toBe(1);
    expect(await statuses(db(), orderId)).toMatchObject({ fulfilment_status: "cancelled", payment_status: "paid" });
    // The harness checks every order's total against its lines when the file ends: the order as it was paid.
    await db().updateTable("orders").set({ amount_cents: 1196 }).where("id", "=", orderId).execute();
  });

  it("a refund of one line counts against that line's product in the sales totals", async () => {
    const orderId = await buyLines(
      origin,
      shop.processorKeys!.publishableKey,
      [
        { productId: BOOK, quantity: 1 },
        { productId: ECHO, quantity: 1 },
      ],
      1196 + 9899,
    );
    const refundsOf = async () => {
      const rows = await db()
        .selectFrom("product_sales_by_day")
        .select(["product_id", sql<number>`sum(refund_cents)::int`.as("cents")])
        .where("product_id", "in", [BOOK, ECHO])
        .groupBy("product_id")
        .execute();
      return Object.fromEntries([BOOK, ECHO].map((id) => [id, rows.find((row) => row.product_id === id)?.cents ?? 0]));
    };
    const before = await refundsOf();
    await shop.services.adminOrders.refund(OPERATOR, await numberOf(orderId), {
      amountCents: null,
      idempotencyKey: newKey(),
      lines: [{ index: 1, quantity: 1, restock: false }],
    });
    const after = await refundsOf();
    expect({ book: after[BOOK]! - before[BOOK]!, echo: after[ECHO]! - before[ECHO]! }).toEqual({ book: 0, echo: 9899 });
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("the same refund on two instances (PostgreSQL)", () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    instances = await startTwoInstances("refund-lines");
  }, 60_000);
  afterAll(() => instances.close());

  it("sent to both at once, many times, restocks once", async () => {
    const [first] = instances.origins;
    const shops = instances.shops;
    await instances.db
      .transaction()
      .execute((trx) =>
        shops[0]!.services.inventory.setStock(
          trx,
          BOOK,
          { tracksStock: true, continueSelling: false, onHand: 2 },
          OPERATOR.email,
        ),
      );
    const orderId = await buyBooks(first, instances.keys.publishableKey, 2);
    const number = (await shops[0]!.services.orders.findOrderNumber(orderId)) ?? "";
    expect(await onHand(instances.db)).toBe(0);
    const key = newKey();
    const request = { amountCents: null, idempotencyKey: key, lines: [{ index: 0, quantity: 2, restock: true }] };
    const sent = await Promise.allSettled(
      [0, 1, 0, 1, 0, 1].map((instance) => shops[instance]!.services.adminOrders.refund(OPERATOR, number, request)),
    );
    expect(sent.some((outcome) => outcome.status === "fulfilled")).toBe(true);
    // The processor's webhooks reach the instances too; they record nothing more.
    await webhooksDelivered(instances.db);
    expect(await onHand(instances.db)).toBe(2);
    expect(
      await instances.db.selectFrom("order_refunds").select("amount_cents").where("order_id", "=", orderId).execute(),
    ).toEqual([{ amount_cents: 2392 }]);
    expect(
      await instances.db
        .selectFrom("order_restocks")
        .select(["quantity", "cause"])
        .where("order_id", "=", orderId)
        .execute(),
    ).toEqual([{ quantity: 2, cause: "refund" }]);
  });
});
