import { afterAll, beforeAll, expect, it } from "vitest";
import { sql } from "kysely";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { parseConfig } from "#server/config";
import { promotionFormSchema } from "#shared/promotion-schemas";

const BOOK = "12321341"; // The Lean Startup…, $11.96
const BOOK_TITLE = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const MONITOR = "4903850";
const ECHO = "23445930";

/**
 * What one shopper may hold while paying, through the shop's own routes: a hold lasts RESERVATION_MINUTES from its
 * first reservation however often the payment is prepared again, a lapsed hold cannot be taken again by the same
 * session or address for as long, a session's and an address's units are capped, and live holds count in the payment
 * limiter. Time passes by moving the holds' times back in the database.
 */
describeEachDatabase("holds while paying", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  /** How far the rate limits' clock has been moved on (PGlite's shop counts them in its memory). */
  let clockAheadMs = 0;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase(), {
      rateLimitClock: () => Date.now() + clockAheadMs,
      reservationSweepMs: 3_600_000,
      trustedProxyHops: 1,
      holdLimits: { unitsPerSession: 3, unitsPerAddress: 5 },
      paymentLimits: { createsPerSession: 100, createsPerIp: 4, recordsPerSession: 100, recordsPerIp: 100 },
    });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  }, 180_000);
  afterAll(() => close());

  const db = () => getDatabase().db;
  type Browser = ReturnType<typeof createHttpBrowser>;
  let nextAddress = 10;
  /** A shopper at a client address of their own (or the given one), with `productId` in the basket `quantity` times. */
  const shopperAt = async (address: string, productId: string, quantity = 1) => {
    const browser = createHttpBrowser(origin);
    const send = browser.send;
    browser.send = (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("x-forwarded-for", address);
      return send(path, { ...init, headers });
    };
    for (let added = 0; added < quantity; added++)
      expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  const shopper = (productId: string, quantity = 1) => shopperAt(`198.51.100.${nextAddress++}`, productId, quantity);
  /** Prepares the payment for the total the page shows (the basket's, less any code). */
  const pay = async (browser: Browser, discountPercent = 0) => {
    const basket = (await (await browser.get("/basket")).json()) as { basket: { subtotalCents: number } };
    const total = Math.round((basket.basket.subtotalCents * (100 - discountPercent)) / 100);
    const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json()) as { clientSecret?: string; error?: { code: string; message: string } },
    };
  };
  const setStock = (variantId: string, onHand: number) =>
    shop.services.inventory.setStock(
      db(),
      variantId,
      { tracksStock: true, continueSelling: false, onHand },
      "operator@example.com",
    );
  /** Every hold was taken `minutes` earlier than it was. */
  const travel = async (minutes: number) => {
    const back = sql<Date>`make_interval(mins => ${minutes})`;
    await db()
      .updateTable("stock_reservations")
      .set({ expires_at: sql`expires_at - ${back}` })
      .execute();
    await db()
      .updateTable("promotion_uses")
      .set({ expires_at: sql`expires_at - ${back}` })
      .where("redeemed_at", "is", null)
      .execute();
    await sql`update hold_claims set first_reserved_at = first_reserved_at - ${back}, expires_at = expires_at - ${back}`.execute(
      db(),
    );
  };
  const minutesLeft = async (hold: string) => {
    const row = await db()
      .selectFrom("stock_reservations")
      .select(sql<number>`extract(epoch from (expires_at - now()))::float / 60`.as("minutes"))
      .where("hold", "=", hold)
      .executeTakeFirstOrThrow();
    return row.minutes;
  };
  const intentOf = (clientSecret = "") => clientSecret.split("_secret_")[0] ?? "";

  it("keeps a hold no longer than RESERVATION_MINUTES from its first reservation, then the same session and address cannot hold it again for as long", async () => {
    await setStock(BOOK, 1);
    const address = "198.51.100.1";
    const guest = await shopperAt(address, BOOK);
    const first = await pay(guest);
    expect(first.status).toBe(201);
    const hold = intentOf(first.body.clientSecret);
    expect(await minutesLeft(hold)).toBeGreaterThan(14.9);

    // Preparing the payment again 14 minutes on keeps the hold, but not past the first reservation's 15 minutes.
    await travel(14);
    expect((await pay(guest)).status).toBe(201);
    expect(await minutesLeft(hold)).toBeLessThan(1.1);

    // It lapses: nobody holds the book now; the same guest, and a new session from the same address, are refused.
    await travel(2);
    await shop.services.inventory.releaseExpired();
    const again = await pay(guest);
    expect(again.status).toBe(429);
    expect(again.body.error?.message).toBe(
      `${BOOK_TITLE} was held for you for 15 minutes and the time ran out. It can be held for you again in 14 minutes.`,
    );
    expect(Number(again.retryAfter)).toBeGreaterThan(13 * 60);
    expect((await pay(await shopperAt(address, BOOK))).status).toBe(429);
    // Another shopper elsewhere holds it.
    expect((await pay(await shopper(BOOK))).status).toBe(201);
  });

  it("gives the lapsed holder the variant again once another RESERVATION_MINUTES have passed", async () => {
    await setStock(MONITOR, 5);
    const guest = await shopper(MONITOR);
    expect((await pay(guest)).status).toBe(201);
    await travel(16);
    await shop.services.inventory.releaseExpired();
    expect((await pay(guest)).status).toBe(429);
    await travel(15);
    expect((await pay(guest)).status).toBe(201);
  });

  it("holds a limited code no longer than its stock: a lapsed code cannot be held again by the same guest", async () => {
    await setStock(BOOK, 10);
    const form = promotionFormSchema.parse({
      code: "LASTONE",
      kind: "percentage",
      value: "10",
      minimumSubtotal: "",
      startsOn: "",
      endsOn: "",
      usageLimit: "1",
      status: "active",
    });
    await shop.services.promotions.create(form, { id: null, email: "operator@example.com" });
    const guest = await shopper(BOOK);
    expect((await guest.postJson("/checkout/promotion", { code: "LASTONE" })).status).toBe(200);
    const first = await pay(guest, 10);
    expect(first.status).toBe(201);
    await travel(14);
    expect((await pay(guest, 10)).status).toBe(201);
    const use = await db()
      .selectFrom("promotion_uses")
      .select(sql<number>`extract(epoch from (expires_at - now()))::float / 60`.as("minutes"))
      .where("hold", "=", intentOf(first.body.clientSecret))
      .executeTakeFirstOrThrow();
    expect(use.minutes).toBeLessThan(1.1);
    await travel(2);
    await shop.services.inventory.releaseExpired();
    const again = await pay(guest, 10);
    expect(again.status).toBe(429);
    expect(again.body.error?.message).toMatch(/^(The code LASTONE|The Lean Startup.*) was held for you for 15 minutes/);
  });

  it("caps a session's units of a variant and an address's units in all (HOLD_UNITS_PER_SESSION, HOLD_UNITS_PER_ADDRESS)", async () => {
    await setStock(BOOK, 100);
    await setStock(MONITOR, 100);
    const many = await shopper(BOOK, 4);
    const refused = await pay(many);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.message).toBe(
      `You can hold at most 3 of ${BOOK_TITLE} while you pay. Please lower the quantity.`,
    );
    const address = "198.51.100.2";
    expect((await pay(await shopperAt(address, BOOK, 3))).status).toBe(201);
    const over = await pay(await shopperAt(address, MONITOR, 3));
    expect(over.status).toBe(409);
    expect(over.body.error?.message).toBe(
      "At most 5 items can be held for payment from one place at a time. Please try again later or with fewer items.",
    );
    expect((await pay(await shopperAt(address, MONITOR, 2))).status).toBe(201);
  });

  it("counts live holds in the payment limiter, past the limiter's own window", async () => {
    await setStock(ECHO, 100);
    const address = "198.51.100.3";
    for (let round = 0; round < 4; round++) expect((await pay(await shopperAt(address, ECHO))).status).toBe(201);
    // The limiter's ten minutes pass (its counts go: in memory, or in the database); the four holds are still live.
    clockAheadMs += 11 * 60_000;
    await db().deleteFrom("rate_limits").execute();
    const refused = await pay(await shopperAt(address, ECHO));
    expect(refused.status).toBe(429);
    // The holds' refusal (a minute), not the limiter's (the rest of its ten).
    expect(refused.body.error?.message).toBe("Too many payment attempts. Please wait 1 minute and try again.");
  });

  it("reads HOLD_UNITS_PER_SESSION and HOLD_UNITS_PER_ADDRESS, 10 and 50 unless set", () => {
    const config = parseConfig({});
    expect([config.HOLD_UNITS_PER_SESSION, config.HOLD_UNITS_PER_ADDRESS]).toEqual([10, 50]);
    const set = parseConfig({ HOLD_UNITS_PER_SESSION: "4", HOLD_UNITS_PER_ADDRESS: "20" });
    expect([set.HOLD_UNITS_PER_SESSION, set.HOLD_UNITS_PER_ADDRESS]).toEqual([4, 20]);
  });
});
