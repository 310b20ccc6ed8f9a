import { afterAll, beforeAll, expect, it } from "vitest";
import type { PriceBreakdown } from "#shared/pricing";
import { createLogger } from "#server/logger";
import { newOrderNumber } from "#server/orders/order-number";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341";
const LINES = [
  {
    productId: BOOK,
    title: "A book",
    priceCents: 1000,
    quantity: 2,
    rating: 4,
    image: { src: "/b.webp", width: 1, height: 1 },
  },
  {
    productId: "1",
    title: "A lamp",
    priceCents: 500,
    quantity: 1,
    rating: 4,
    image: { src: "/l.webp", width: 1, height: 1 },
  },
];
/** 2 books and a lamp, $4.90 delivery: $29.90. */
const PRICING: PriceBreakdown = {
  itemsCents: 2500,
  discountCents: 0,
  shippingCents: 490,
  totalBeforeTaxCents: 2990,
  taxCents: 0,
  totalCents: 2990,
  lines: LINES.map((line) => ({
    key: line.productId,
    title: line.title,
    unitPriceCents: line.priceCents,
    quantity: line.quantity,
    amountCents: line.priceCents * line.quantity,
    discountCents: 0,
    taxCents: 0,
  })),
  shipping: null,
  deliveryOptions: [],
  isUndeliverable: false,
  taxes: [],
  promotion: null,
};
const DAY = 24 * 60 * 60 * 1000;
const WITHDRAW_LINK = /<a [^>]*>Withdraw from contract here<\/a>/;

/**
 * "Withdraw from contract here": offered on the order pages of EU and EEA orders until 14 days after delivery (shipped
 * plus DELIVERY_DAYS), recorded once per form with its acknowledgement and its return.
 */
describeEachDatabase("the EU withdrawal function", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { logger: createLogger("silent"), deliveryDays: 7 });
  }, 60_000);
  afterAll(() => shop.close());

  let sequence = 0;
  /** A guest with a session, and a paid order of theirs to `country`, shipped `shippedDaysAgo` (or not shipped). */
  async function placeOrder(country: string, shippedDaysAgo: number | null = null) {
    const browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    const session = await shop.services.sessions.findSession(
      decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
    );
    const id = `pi_withdrawal${Date.now()}${sequence++}`;
    const number = newOrderNumber(new Date());
    const { db } = getDatabase();
    await db
      .insertInto("orders")
      .values({
        id,
        number,
        session_id: session?.id ?? null,
        user_id: null,
        amount_cents: PRICING.totalCents,
        currency: "eur",
        items: JSON.stringify(LINES),
        pricing: JSON.stringify(PRICING),
        created_at: new Date(),
        delivery_address: JSON.stringify({
          name: "Grete Müller",
          line1: "Hauptstraße 1",
          line2: null,
          city: "Berlin",
          region: null,
          postalCode: "10115",
          country,
        }),
        contact_email: "grete@example.de",
        card_brand: "visa",
        card_last4: "4242",
      })
      .execute();
    await db.insertInto("order_status_history").values({ order_id: id, status: "paid", actor: "shop" }).execute();
    if (shippedDaysAgo !== null) {
      await db
        .updateTable("orders")
        .set({ fulfilment_status: "shipped", status: "shipped" })
        .where("id", "=", id)
        .execute();
      await db
        .insertInto("order_status_history")
        .values({
          order_id: id,
          status: "shipped",
          actor: "operator@example.com",
          created_at: new Date(Date.now() - shippedDaysAgo * DAY),
        })
        .execute();
    }
    return { id, number, browser };
  }
  const html = async (response: Response) => ({ status: response.status, text: await response.text() });
  const page = (browser: ReturnType<typeof createBrowser>, path: string) =>
    browser.send(path, { headers: { accept: "text/html" } }).then(html);
  const withdrawalsOf = (orderId: string) =>
    getDatabase().db.selectFrom("withdrawals").selectAll().where("order_id", "=", orderId).execute();
  const acknowledgementsOf = (withdrawalIds: string[]) =>
    getDatabase()
      .db.selectFrom("email_outbox")
      .select(["recipient", "subject", "text_body"])
      .where("kind", "=", "withdrawal-received")
      .where(
        "dedupe_key",
        "in",
        withdrawalIds.map((id) => `withdrawal-received:${id}`),
      )
      .execute();

  it("offers it on a German order before shipping and until 14 days after delivery, with its one page", async () => {
    const unshipped = await placeOrder("DE");
    const orderPage = await page(unshipped.browser, `/orders/${unshipped.number}`);
    expect(orderPage.text).toMatch(WITHDRAW_LINK);
    const withdrawPage = await page(unshipped.browser, `/orders/${unshipped.number}/withdraw`);
    expect(withdrawPage.status).toBe(200);
    for (const text of ["A book", "A lamp", "Grete Müller", "grete@example.de", "Confirm withdrawal"])
      expect(withdrawPage.text).toContain(text);
    expect(withdrawPage.text.match(/type="checkbox"[^>]*checked/g)).toHaveLength(2);
    expect(withdrawPage.text).not.toMatch(/reason/i);

    const lastDay = await placeOrder("DE", 20);
    expect((await page(lastDay.browser, `/orders/${lastDay.number}`)).text).toMatch(WITHDRAW_LINK);
  });

  it("is absent for a US order and after the period, and its page is not found", async () => {
    for (const { browser, number } of [await placeOrder("US"), await placeOrder("DE", 22)]) {
      const orderPage = await page(browser, `/orders/${number}`);
      expect(orderPage.status).toBe(200);
      expect(orderPage.text).not.toMatch(WITHDRAW_LINK);
      expect((await page(browser, `/orders/${number}/withdraw`)).status).toBe(404);
      const key = crypto.randomUUID();
      expect((await browser.postForm(`/orders/${number}/withdraw`, { key, "line-0": "on" })).status).toBe(409);
    }
  });

  it("records a double submit once, with one acknowledgement and one return that gives the delivery charge back", async () => {
    const { id, number, browser } = await placeOrder("DE", 3);
    const key = crypto.randomUUID();
    const form = { key, "line-0": "on", "line-1": "on" };
    const answers = await Promise.all([
      browser.postForm(`/orders/${number}/withdraw`, form),
      browser.postForm(`/orders/${number}/withdraw`, form),
    ]);
    const again = await browser.postForm(`/orders/${number}/withdraw`, form);
    const withdrawals = await withdrawalsOf(id);
    expect(withdrawals).toHaveLength(1);
    // Each submission leads to the order's page, saying the one withdrawal was received.
    for (const answer of [...answers, again]) {
      expect(answer.status).toBe(302);
      expect(answer.headers.get("location")).toBe(`/orders/${number}?withdrawn=${withdrawals[0]?.id}`);
    }
    expect((await page(browser, answers[0]?.headers.get("location") ?? "")).text).toContain(
      "We received your withdrawal on",
    );
    expect(withdrawals[0]).toMatchObject({ is_full: true, name: "Grete Müller", email: "grete@example.de" });
    const mails = await acknowledgementsOf(withdrawals.map((withdrawal) => withdrawal.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.recipient).toBe("grete@example.de");
    expect(mails[0]?.subject).toContain("We received your withdrawal");
    expect(mails[0]?.text_body).toContain("2 × A book");
    expect(mails[0]?.text_body).toContain("1 × A lamp");
    const returns = await getDatabase()
      .db.selectFrom("returns")
      .select(["id", "kind", "include_shipping", "refund_cents", "return_fee_cents"])
      .where("order_id", "=", id)
      .execute();
    expect(returns).toEqual([
      {
        id: withdrawals[0]?.return_id,
        kind: "withdrawal",
        include_shipping: true,
        refund_cents: 2990,
        return_fee_cents: 0,
      },
    ]);
    // Nothing is left to withdraw from: the function is gone, and the order page lists the withdrawal.
    const orderPage = await page(browser, `/orders/${number}`);
    expect(orderPage.text).not.toMatch(WITHDRAW_LINK);
    expect(orderPage.text).toContain("Withdrawals");
  });

  it("withdraws from the lines left ticked only, without the delivery charge, then from the rest with it", async () => {
    const { id, number, browser } = await placeOrder("FR", 1);
    expect(
      (await browser.postForm(`/orders/${number}/withdraw`, { key: crypto.randomUUID(), "line-1": "on" })).status,
    ).toBe(302);
    const nothing = await browser.postForm(`/orders/${number}/withdraw`, { key: crypto.randomUUID() });
    expect(nothing.status).toBe(400);
    expect(await nothing.text()).toContain("Tick at least one item to withdraw from.");
    const rest = await page(browser, `/orders/${number}/withdraw`);
    expect(rest.text).toContain("A book");
    expect(rest.text).not.toContain("A lamp");
    expect(
      (await browser.postForm(`/orders/${number}/withdraw`, { key: crypto.randomUUID(), "line-0": "on" })).status,
    ).toBe(302);
    const returns = await getDatabase()
      .db.selectFrom("returns")
      .select(["include_shipping", "refund_cents"])
      .where("order_id", "=", id)
      .orderBy("created_at")
      .execute();
    expect(returns).toEqual([
      { include_shipping: false, refund_cents: 500 },
      { include_shipping: true, refund_cents: 2490 },
    ]);
    expect((await withdrawalsOf(id)).map((withdrawal) => withdrawal.is_full)).toEqual([false, true]);
  });

  it("opens for anybody holding the guest's signed link, and for nobody else", async () => {
    const { number } = await placeOrder("DE");
    const stranger = createBrowser(shop.app);
    expect((await page(stranger, `/orders/${number}/withdraw`)).status).toBe(404);
    const path = await shop.services.orders.findGuestOrderPath(number, "GRETE@example.de");
    expect(path).not.toBeNull();
    const access = new URL(path ?? "", "http://shop.test").search;
    const withdrawPage = await page(stranger, `/orders/${number}/withdraw${access}`);
    expect(withdrawPage.status).toBe(200);
    expect(withdrawPage.text).toContain("Confirm withdrawal");
  });
});
