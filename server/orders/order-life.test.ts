import { afterAll, beforeAll, expect, it } from "vitest";
import { ORDER_NUMBER_PATTERN } from "#shared/orders";
import { createLogger } from "#server/logger";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { newOrderNumber } from "./order-number";

const BOOK = "12321341";
const ITEM = {
  productId: BOOK,
  title: "A book",
  priceCents: 1196,
  quantity: 2,
  rating: 4,
  image: { src: "/images/book.webp", width: 10, height: 10 },
};

/**
 * The order's life through the order service (the operator console calls the same functions), and the order's own
 * page as its owner and as anybody else sees it.
 */
describeEachDatabase("an order's status, history and page", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { logger: createLogger("silent") });
  }, 60_000);
  afterAll(() => shop.close());

  let sequence = 0;
  /** A paid order of a guest session (the shape checkout writes), paid `minutesAgo`. */
  async function placeOrder(
    sessionId: string,
    {
      minutesAgo = 0,
      createdMinutesAgo,
      amountCents = 2392,
    }: { minutesAgo?: number; createdMinutesAgo?: number; amountCents?: number } = {},
  ) {
    const id = `pi_lifetest${Date.now()}${sequence++}`;
    const number = newOrderNumber(new Date());
    await getDatabase()
      .db.insertInto("orders")
      .values({
        id,
        number,
        session_id: sessionId,
        user_id: null,
        amount_cents: amountCents,
        currency: "usd",
        items: JSON.stringify([ITEM]),
        created_at: new Date(Date.now() - (createdMinutesAgo ?? minutesAgo) * 60_000),
        paid_at: new Date(Date.now() - minutesAgo * 60_000),
        delivery_address: JSON.stringify({
          name: "Ada Lovelace",
          line1: "1 Main Street",
          line2: null,
          city: "Los Angeles",
          region: "CA",
          postalCode: "90001",
          country: "US",
        }),
        contact_email: "a-very-long-address-for-receipts-1234567890@example.com",
        card_brand: "visa",
        card_last4: "4242",
      })
      .execute();
    await getDatabase()
      .db.insertInto("order_status_history")
      .values({ order_id: id, status: "paid", actor: "shop" })
      .execute();
    return { id, number };
  }
  /** A guest with a session (started by a basket), and the session's id. */
  async function guest() {
    const browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    const session = await shop.services.sessions.findSession(
      decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
    );
    return { browser, sessionId: session?.id ?? "" };
  }
  const page = (browser: ReturnType<typeof createBrowser>, path: string) =>
    browser.send(path, { headers: { accept: "text/html" } });
  const historyOf = (orderId: string) =>
    getDatabase()
      .db.selectFrom("order_status_history")
      .select(["status", "carrier", "tracking_number", "amount_cents", "actor"])
      .where("order_id", "=", orderId)
      .orderBy("id")
      .execute();

  it("numbers look like SF-YYMM-XXXX and do not follow one another", () => {
    const numbers = Array.from({ length: 200 }, () => newOrderNumber(new Date(Date.UTC(2026, 10, 23))));
    for (const number of numbers) expect(number).toMatch(ORDER_NUMBER_PATTERN);
    expect(numbers[0]?.startsWith("SF-2611-")).toBe(true);
    expect(new Set(numbers).size).toBeGreaterThan(195);
  });

  it("ships a paid order with its carrier and tracking number, then refuses to cancel or ship it again", async () => {
    const { sessionId } = await guest();
    const { id, number } = await placeOrder(sessionId);
    const { orders } = shop.services;
    expect(
      await orders.markShipped(id, { carrier: "UPS", trackingNumber: "1Z999AA10123456784" }, "operator@example.com"),
    ).toBe("shipped");
    await expect(orders.cancel(id, "operator@example.com")).rejects.toMatchObject({
      code: "ORDER_TRANSITION_REFUSED",
      message: `Order ${number} is shipped, so it cannot be cancelled.`,
    });
    await expect(
      orders.markShipped(id, { carrier: "UPS", trackingNumber: "x" }, "operator@example.com"),
    ).rejects.toMatchObject({ code: "ORDER_TRANSITION_REFUSED" });
    await expect(
      orders.markShipped(id, { carrier: " ", trackingNumber: "x" }, "operator@example.com"),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await historyOf(id)).toEqual([
      { status: "paid", carrier: null, tracking_number: null, amount_cents: null, actor: "shop" },
      {
        status: "shipped",
        carrier: "UPS",
        tracking_number: "1Z999AA10123456784",
        amount_cents: null,
        actor: "operator@example.com",
      },
    ]);
  });

  it("refunds in parts up to what was paid, never more, and a refunded order cannot ship or be disputed", async () => {
    const { sessionId } = await guest();
    const { id, number } = await placeOrder(sessionId, { amountCents: 2392 });
    const { orders } = shop.services;
    expect(await orders.recordRefund(id, 1196, "operator@example.com", "one book arrived damaged")).toBe(
      "partially_refunded",
    );
    await expect(orders.recordRefund(id, 1197, "operator@example.com")).rejects.toMatchObject({
      code: "ORDER_TRANSITION_REFUSED",
      message: `Order ${number} was paid $23.92 and $11.96 of it is refunded already, so at most $11.96 can be refunded.`,
    });
    await expect(orders.recordRefund(id, 0, "operator@example.com")).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(orders.recordRefund(id, 1.5, "operator@example.com")).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await orders.recordRefund(id, 1196, "operator@example.com")).toBe("refunded");
    await expect(
      orders.markShipped(id, { carrier: "UPS", trackingNumber: "1Z" }, "operator@example.com"),
    ).rejects.toMatchObject({
      message: `Order ${number} is refunded, so it cannot be shipped.`,
    });
    await expect(orders.recordRefund(id, 1, "operator@example.com")).rejects.toMatchObject({
      code: "ORDER_TRANSITION_REFUSED",
    });
    await expect(orders.recordDispute(id, { amountCents: 2392 }, "processor")).rejects.toMatchObject({
      code: "ORDER_TRANSITION_REFUSED",
    });
    const row = await getDatabase()
      .db.selectFrom("orders")
      .select(["status", "refunded_cents"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "refunded", refunded_cents: 2392 });
    expect((await historyOf(id)).map((entry) => [entry.status, entry.amount_cents])).toEqual([
      ["paid", null],
      ["partially_refunded", 1196],
      ["refunded", 1196],
    ]);
  });

  it("cancels a paid order, which can then be refunded; records a dispute; refuses unknown orders and nameless actors", async () => {
    const { sessionId } = await guest();
    const { id } = await placeOrder(sessionId);
    const { orders } = shop.services;
    expect(await orders.cancel(id, "operator@example.com", "out of stock")).toBe("cancelled");
    expect(await orders.recordRefund(id, 2392, "operator@example.com")).toBe("refunded");
    const disputed = await placeOrder(sessionId);
    expect(await orders.recordDispute(disputed.id, { amountCents: 2392, reason: "fraudulent" }, "processor")).toBe(
      "disputed",
    );
    await expect(orders.recordDispute(disputed.id, { amountCents: 2392 }, "processor")).rejects.toMatchObject({
      code: "ORDER_TRANSITION_REFUSED",
    });
    expect(await orders.recordRefund(disputed.id, 2392, "operator@example.com")).toBe("refunded");
    await expect(orders.cancel("pi_doesnotexist", "operator@example.com")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(orders.cancel(id, "  ")).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("lists orders newest paid first, whatever their intents' creation times", async () => {
    const { browser, sessionId } = await guest();
    // Paid a few seconds apart; the later payment reused an intent created before the first one.
    const first = await placeOrder(sessionId, { minutesAgo: 2, createdMinutesAgo: 2 });
    const second = await placeOrder(sessionId, { minutesAgo: 1, createdMinutesAgo: 30 });
    const listed = await shop.services.orders.listOrders({ sessionId }, null);
    expect(listed.orders.map((order) => order.number)).toEqual([second.number, first.number]);
    const html = await (await page(browser, "/orders")).text();
    expect(html.indexOf(second.number)).toBeLessThan(html.indexOf(first.number));
    expect(html).toContain(`href="/orders/${second.number}"`);
    expect(html).toContain(">Paid<");
  });

  it("shows its owner the order page; anybody else, and a made-up number, get the 404 page", async () => {
    const owner = await guest();
    const { id, number } = await placeOrder(owner.sessionId);
    await shop.services.orders.markShipped(
      id,
      { carrier: "USPS", trackingNumber: "9400100000000000000000" },
      "operator@example.com",
    );
    const response = await page(owner.browser, `/orders/${number}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    const html = await response.text();
    for (const text of [
      `Order ${number}`,
      "Paid with Visa ending in 4242",
      "Los Angeles, CA 90001",
      "Shipped with USPS, tracking number 9400100000000000000000",
      "$23.92",
      "Print receipt",
    ]) {
      expect(html).toContain(text);
    }
    expect(html).not.toContain(id);
    // The number is case-blind, as people type it.
    expect((await page(owner.browser, `/orders/${number.toLowerCase()}`)).status).toBe(200);

    const stranger = await guest();
    const refused = await page(stranger.browser, `/orders/${number}`);
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain("Page not found");
    expect((await page(stranger.browser, `/orders/${id}`)).status).toBe(404);
    expect((await page(createBrowser(shop.app), `/orders/${number}`)).status).toBe(404);
    expect((await page(owner.browser, "/orders/SF-2611-ZZZZ")).status).toBe(404);
  });

  it("a guest's order joins the account at sign-in, and its page follows it there", async () => {
    const owner = await guest();
    const { number } = await placeOrder(owner.sessionId);
    const user = await shop.services.accounts.register(
      `orders-${Date.now()}@example.com`,
      "a long and unusual passphrase 42",
      "127.0.0.1",
    );
    await shop.services.orders.adoptGuestOrders(owner.sessionId, user.id);
    expect(await shop.services.orders.getOrder({ sessionId: owner.sessionId }, number)).toBeNull();
    expect((await shop.services.orders.getOrder({ userId: user.id }, number))?.number).toBe(number);
  });
});
