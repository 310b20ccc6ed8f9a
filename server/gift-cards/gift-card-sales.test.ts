import { afterAll, beforeAll, expect, it } from "vitest";
import type { BasketOwner } from "#server/basket/basket-owner";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import type { Kysely } from "kysely";
import * as giftCardsOutOfSales from "#server/db/migrations/0041-gift-cards-out-of-sales";
import { giftCardCodeHash, normaliseGiftCardCode } from "./gift-card-code";

const BOOK = "12321341"; // $10.00 in these tests
const MONITOR = "4903850"; // a gift card of any amount in these tests
const OPERATOR = { id: null, email: "owner@console.test" };
const GROUPED_CODE = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/;
let keys = 0;
const newKey = () => `gift-card-sales-${Date.now()}-${++keys}`;

/**
 * A gift card sold with other goods: the dashboard counts it as money owed, not as sales; refunding the order by amount
 * gives back the other goods first, then takes the card back (disabled) for only what is left on it.
 */
describeEachDatabase("gift cards sold beside other goods", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const db = () => getDatabase().db;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    await shop.services.catalogue.updateProduct(BOOK, { priceCents: 1_000 });
    await shop.services.catalogue.updateProduct(MONITOR, { giftCard: "any_amount" });
  });
  afterAll(() => close());

  const today = () => shop.services.salesDashboard.getDashboard({ period: "today" });

  /** A guest buys a $50.00 gift card for `recipient` and a $10.00 book, by card; the order's id, number and card. */
  async function buyCardAndBook(recipient: string) {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/empty", {})).status).toBe(200);
    const session = await shop.services.sessions.findSession(
      decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
    );
    const owner: BasketOwner = { sessionId: session!.id };
    await shop.services.basket.addGiftCard(owner, MONITOR, undefined, {
      recipientEmail: recipient,
      senderName: "Alex",
      message: "",
      sendOn: null,
      amountCents: 5_000,
    });
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    await addDeliveryAddress(browser);
    const created = await browser.send(`/payments/create?total=6000`, { method: "POST" });
    expect(created.status, await created.clone().text()).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    const orderId = confirmed.body.id!;
    expect((await browser.postJson("/orders/record", { paymentIntentId: orderId })).status).toBeLessThan(300);
    const number = (await shop.services.orders.findOrderNumber(orderId)) ?? "";
    const mail = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("kind", "=", "gift-card")
      .where("recipient", "=", recipient)
      .executeTakeFirstOrThrow();
    const code = GROUPED_CODE.exec(mail.text_body)![1]!;
    const card = (await shop.services.balances.findGiftCard(giftCardCodeHash(normaliseGiftCardCode(code)!)))!;
    const order = await db().selectFrom("orders").select("items").where("id", "=", orderId).executeTakeFirstOrThrow();
    const cardLine = order.items.findIndex((item) => item.giftCard);
    return { orderId, number, card, cardLine };
  }

  it("counts a $50 gift card bought with a $10 book as $10.00 of sales and $50.00 of gift cards sold and owed", async () => {
    const before = await today();
    await buyCardAndBook("sales@example.com");
    const after = await today();
    expect(after.figures.grossCents - before.figures.grossCents).toBe(1_000);
    expect(after.figures.netCents - before.figures.netCents).toBe(1_000);
    expect(after.figures.orders - before.figures.orders).toBe(1);
    expect(after.figures.itemsSold - before.figures.itemsSold).toBe(1);
    expect(after.giftCards.soldCents - before.giftCards.soldCents).toBe(5_000);
    expect(after.giftCards.outstandingCents - before.giftCards.outstandingCents).toBe(5_000);
    const netOfDays = (dashboard: typeof after) => dashboard.days.reduce((sum, day) => sum + day.netCents, 0);
    expect(netOfDays(after) - netOfDays(before)).toBe(1_000);
    expect(after.topProducts.map((product) => product.productId)).not.toContain(MONITOR);
  });

  it("refunds by amount the book first, then disables the card and gives back only what is left on it", async () => {
    const { adminOrders, balances, giftCards } = shop.services;
    const { orderId, number, card, cardLine } = await buyCardAndBook("refund@example.com");
    // Its holder spends $20.00 of it.
    await balances.adjust(db(), {
      accountId: card.id,
      amountCents: -2_000,
      actor: "test",
      note: "stands for a purchase",
    });
    const before = await today();

    // $60.00 was paid, $20.00 of the card is spent: at most the book's $10.00 and the card's $30.00 go back.
    expect((await adminOrders.quoteRefund(number, { amountCents: null })).ceilingCents).toBe(4_000);
    await expect(
      adminOrders.refund(OPERATOR, number, { amountCents: 4_001, idempotencyKey: newKey() }),
    ).rejects.toThrow("You can refund at most $40.00.");
    // $5.00 is the book's: the card stays as it is.
    await adminOrders.refund(OPERATOR, number, { amountCents: 500, idempotencyKey: newKey() });
    expect((await balances.figures(card.id)).availableCents).toBe(3_000);
    expect((await balances.findAccount(card.id))?.disabledAt ?? null).toBeNull();

    // $10.00 more reaches into the card: it is disabled, and the rest of the book and $5.00 of the card come back.
    const quote = await adminOrders.quoteRefund(number, { amountCents: 1_000 });
    expect(quote).toMatchObject({ ceilingCents: 3_500, giftCardsDisabled: 1 });
    await adminOrders.refund(OPERATOR, number, { amountCents: 1_000, idempotencyKey: newKey() });
    expect((await balances.findAccount(card.id))?.disabledAt).not.toBeNull();
    expect((await giftCards.list()).find((row) => row.id === card.id)).toMatchObject({
      status: "disabled",
      balanceCents: 0,
    });
    const order = await db()
      .selectFrom("orders")
      .select(["refunded_cents", "payment_status"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({ refunded_cents: 1_500, payment_status: "partially_refunded" });
    const lines = await db()
      .selectFrom("order_refund_lines")
      .select(["line_index", "quantity", "amount_cents"])
      .where("order_id", "=", orderId)
      .execute();
    expect(lines).toEqual([{ line_index: cardLine, quantity: 1, amount_cents: 500 }]);

    // Nothing of the card is left to give back, and the book's $10.00 has gone back: nothing more.
    await expect(adminOrders.quoteRefund(number, { amountCents: null })).rejects.toThrow(
      "What is left of this order was spent from the gift cards it bought.",
    );
    await expect(adminOrders.refund(OPERATOR, number, { amountCents: null, idempotencyKey: newKey() })).rejects.toThrow(
      "What is left of this order was spent from the gift cards it bought.",
    );

    // The dashboard: the book's $10.00 is refunded sales; the card's $5.00 and the $25.00 no longer owed are not.
    const after = await today();
    expect(after.figures.refundCents - before.figures.refundCents).toBe(1_000);
    expect(after.figures.netCents - before.figures.netCents).toBe(-1_000);
    expect(after.giftCards.outstandingCents - before.giftCards.outstandingCents).toBe(-3_000);
  });

  it("a refund of the gift card's line gives back what is left on it and counts nothing against sales", async () => {
    const { adminOrders, balances } = shop.services;
    const { number, card, cardLine } = await buyCardAndBook("line@example.com");
    await balances.adjust(db(), {
      accountId: card.id,
      amountCents: -1_500,
      actor: "test",
      note: "stands for a purchase",
    });
    const before = await today();
    const refunded = await adminOrders.refund(OPERATOR, number, {
      amountCents: null,
      idempotencyKey: newKey(),
      lines: [{ index: cardLine, quantity: 1, restock: false }],
    });
    expect(refunded.amountCents).toBe(3_500);
    expect((await balances.findAccount(card.id))?.disabledAt).not.toBeNull();
    const after = await today();
    expect(after.figures.refundCents - before.figures.refundCents).toBe(0);
    expect(after.giftCards.outstandingCents - before.giftCards.outstandingCents).toBe(-3_500);
  });
  it("Cancel and refund gives back the book and what is left on the card, never what was spent of it", async () => {
    const { adminOrders, balances } = shop.services;
    const { orderId, number, card } = await buyCardAndBook("cancel@example.com");
    await balances.adjust(db(), {
      accountId: card.id,
      amountCents: -2_000,
      actor: "test",
      note: "stands for a purchase",
    });
    const cancelled = await adminOrders.cancelAndRefund(OPERATOR, number, newKey());
    expect(cancelled.amountCents).toBe(4_000);
    expect((await balances.findAccount(card.id))?.disabledAt).not.toBeNull();
    expect(
      await db().selectFrom("orders").select("refunded_cents").where("id", "=", orderId).executeTakeFirstOrThrow(),
    ).toEqual({ refunded_cents: 4_000 });
  });

  it("sums the totals already kept again: with gift cards as sales when undone, without them when done again", async () => {
    const migrated = await today();
    const schema = db() as unknown as Kysely<unknown>;
    await giftCardsOutOfSales.down(schema);
    const undone = await today();
    // Four $50.00 cards sold above; $5.00, $35.00 and $30.00 of them refunded by their lines.
    expect(undone.figures.grossCents - migrated.figures.grossCents).toBe(20_000);
    expect(undone.figures.refundCents - migrated.figures.refundCents).toBe(7_000);
    await giftCardsOutOfSales.up(schema);
    expect(await today()).toEqual(migrated);
  });
});
