import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, confirmCard, createBrowser, createHttpBrowser } from "#server/testing/test-app";

const BOOK = "12321341"; // $11.96
const PASSWORD = "violet tractor harbour pickle";
/** The catalogue's own version check (server/catalogue), made by whichever request comes first in a second. */
const VERSION_CHECK = /^select "version" from "catalogue_version"$/;
/** How long the idle shop is watched. */
const IDLE_SECONDS = 20;

/** What one request sent to the database: each statement's SQL, when it was asked for, and its answer (ms). */
interface Sent {
  sql: string;
  start: number;
  end: number;
}

/**
 * Round trips: statements that could not have been sent together. A statement that starts after every earlier one
 * has answered waited for them (a chain); statements that overlap were in flight at once (one batch).
 */
function roundTrips(sent: readonly Sent[]): number {
  let trips = 0;
  let answeredBy = -Infinity;
  for (const statement of [...sent].sort((a, b) => a.start - b.start)) {
    if (statement.start >= answeredBy) trips += 1;
    answeredBy = Math.max(answeredBy, statement.end);
  }
  return trips;
}

type Shopper = "guest" | "shopper with a basket";
interface Budget {
  statements: number;
  roundTrips: number;
}

/**
 * Each page's budget of statements and round trips, for a guest (pages from the guest page cache, once warm) and for
 * a signed-in shopper with a basket (the session's own statement included). A page that needs more fails here with
 * what it sent: lower a budget when a page gets cheaper, raise one only with a reason in the commit. Round trips are
 * judged on PostgreSQL, where statements sent at once share one; PGlite is in the process and takes them in turn.
 * Not counted: the catalogue's version check, one tiny statement at most once a second per instance whichever
 * request happens to make it (server/catalogue).
 */
const BUDGETS: Record<string, Record<Shopper, Budget>> = {
  home: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 1, roundTrips: 1 } },
  product: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 2, roundTrips: 2 } },
  search: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 1, roundTrips: 1 } },
  listing: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 3, roundTrips: 2 } },
  checkout: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 2, roundTrips: 2 } },
  // /payment: the basket, the address, the saved addresses, the rates and the balances (applied ones and the account's
  // store credit) asked for at once after the session.
  payment: { guest: { statements: 4, roundTrips: 1 }, "shopper with a basket": { statements: 6, roundTrips: 2 } },
  orders: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 3, roundTrips: 2 } },
  order: { guest: { statements: 0, roundTrips: 0 }, "shopper with a basket": { statements: 3, roundTrips: 3 } },
  // Within its return window: the replacement options' variants with the returns, then their stock.
  "shipped order": {
    guest: { statements: 0, roundTrips: 0 },
    "shopper with a basket": { statements: 5, roundTrips: 4 },
  },
};

/**
 * The statements and round trips each of the shop's pages sends to the database, counted at the driver (Kysely's
 * log) for the request alone: background work (webhook delivery, the sweeps) runs outside the request and is not
 * counted. On both databases; on PGlite statements sent at once still take turns on its one connection, but were
 * asked for together, which is what a round trip to a server would be.
 */
describeEachDatabase("statement budgets per page", (getDatabase) => {
  const requests = new AsyncLocalStorage<Sent[]>();
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let close: () => Promise<void> = async () => {};
  let shopperCookie = "";
  /** A signed-in shopper with a basket and no order yet. */
  let newShopperCookie = "";
  let orderNumber = "";
  let shippedOrderNumber = "";
  let departmentSlug = "";
  let stopObserving: () => void = () => {};

  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
    const running = await shop.listen(0);
    const origin = `http://127.0.0.1:${running.port}`;
    close = async () => {
      await running.close();
      await shop.close();
    };
    stopObserving = getDatabase().observeQueries(
      (milliseconds, _isError, sql, askedAt) => {
        const now = performance.now();
        requests.getStore()?.push({ sql, start: askedAt ?? now - milliseconds, end: now });
      },
      { withAskedAt: true },
    );
    // A signed-in shopper with a paid order and a basket again.
    const browser = createHttpBrowser(origin);
    const registered = await browser.postForm(
      "/login",
      { intent: "register", email: `budget${Date.now()}@shop.test`, password: PASSWORD },
      { accept: "text/html", origin },
    );
    expect(registered.status).toBe(302);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    const placeOrder = async () => {
      await addDeliveryAddress(browser, { isSignedIn: true });
      const created = await browser.send("/payments/create?total=1196", { method: "POST" });
      const { clientSecret } = (await created.json()) as { clientSecret: string };
      const { publishableKey } = shop.processorKeys!;
      const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
      const recorded = await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
      return ((await recorded.json()) as { orderNumber: string }).orderNumber;
    };
    orderNumber = await placeOrder();
    // A second order, shipped: within its return window, its page offers the return form.
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    shippedOrderNumber = await placeOrder();
    await shop.services.adminOrders.markShipped({ id: null, email: "ops@shop.test" }, shippedOrderNumber, {
      carrier: "UPS",
      trackingNumber: "1Z999",
    });
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    shopperCookie = browser.cookie ?? "";
    const newcomer = createHttpBrowser(origin);
    expect(
      (
        await newcomer.postForm(
          "/login",
          { intent: "register", email: `newcomer${Date.now()}@shop.test`, password: PASSWORD },
          { accept: "text/html", origin },
        )
      ).status,
    ).toBe(302);
    expect((await newcomer.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    newShopperCookie = newcomer.cookie ?? "";
    const department = await getDatabase()
      .db.selectFrom("departments")
      .select("slug")
      .where("parent_id", "is", null)
      .orderBy("position")
      .executeTakeFirstOrThrow();
    departmentSlug = department.slug;
  }, 180_000);
  afterAll(async () => {
    stopObserving();
    await close();
  });

  const isServer = () => getDatabase().kind === "postgres";
  const pages: Record<string, () => string> = {
    home: () => "/",
    product: () => "/products/the-lean-startup",
    search: () => "/search?q=echo",
    listing: () => `/departments/${departmentSlug}`,
    checkout: () => "/checkout",
    payment: () => "/payment",
    orders: () => "/orders",
    order: () => `/orders/${orderNumber}`,
    "shipped order": () => `/orders/${shippedOrderNumber}`,
  };

  /** One page as a browser asks for it, and what it sent to the database. */
  async function measure(
    shopper: Shopper,
    path: string,
    cookie = shopperCookie,
  ): Promise<{ status: number; sent: Sent[] }> {
    const browser = createBrowser(shop.app, shopper === "guest" ? undefined : cookie);
    const sent: Sent[] = [];
    const response = await requests.run(sent, () => browser.send(path, { headers: { accept: "text/html" } }));
    await response.arrayBuffer();
    return { status: response.status, sent };
  }

  for (const shopper of ["guest", "shopper with a basket"] as const) {
    it(`keeps every page within its budget for a ${shopper}`, async () => {
      const over: string[] = [];
      for (const [name, path] of Object.entries(pages)) {
        // Once to warm what is kept between requests (the guest page cache, the catalogue), then the ones measured.
        // Statements are counted on one request; round trips are read from timings, which a busy machine stretches
        // (a statement sent with others can be answered before the last of them is asked for), so the best of three.
        await measure(shopper, path());
        const measured = [];
        for (let run = 0; run < 3; run += 1) measured.push(await measure(shopper, path()));
        const { status, sent: all } = measured[0]!;
        const sent = all.filter((statement) => !VERSION_CHECK.test(statement.sql));
        expect(status, `${name} ${path()}`).toBeLessThan(500);
        const budget = BUDGETS[name]![shopper];
        const trips = Math.min(
          ...measured.map((run) => roundTrips(run.sent.filter((statement) => !VERSION_CHECK.test(statement.sql)))),
        );
        const isOver = sent.length > budget.statements || (isServer() && trips > budget.roundTrips);
        if (isOver)
          over.push(
            `${name} (${path()}): ${sent.length} statements in ${trips} round trips, budget ${budget.statements} in ${budget.roundTrips}:\n` +
              sent.map((statement) => `    ${statement.sql.replace(/\s+/g, " ").slice(0, 160)}`).join("\n"),
          );
      }
      expect(over, over.join("\n")).toEqual([]);
    });
  }

  it("sends only the session's statement for a product page to a signed-in shopper with no order to review", async () => {
    await measure("shopper with a basket", pages.product!(), newShopperCookie);
    const { status, sent } = await measure("shopper with a basket", pages.product!(), newShopperCookie);
    expect(status).toBe(200);
    const statements = sent.filter((statement) => !VERSION_CHECK.test(statement.sql)).map((statement) => statement.sql);
    expect(statements, statements.join("\n")).toHaveLength(1);
  });

  it("polls the database at most once a second in all while nobody asks for anything", async () => {
    // E-mails the pages' orders wrote are work, not polling: the window opens once the outbox has sent them.
    await vi.waitFor(
      async () => {
        const waiting = await getDatabase()
          .db.selectFrom("email_outbox")
          .select("id")
          .where("status", "=", "pending")
          .execute();
        expect(waiting).toEqual([]);
      },
      { timeout: 15_000, interval: 200 },
    );
    const sent: string[] = [];
    const stop = getDatabase().observeQueries((_milliseconds, _isError, sql) => sent.push(sql));
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    stop();
    const bySql = new Map<string, number>();
    for (const sql of sent) bySql.set(sql.trim().slice(0, 100), (bySql.get(sql.trim().slice(0, 100)) ?? 0) + 1);
    expect(sent.length, [...bySql].map(([sql, count]) => `${count} × ${sql}`).join("\n")).toBeLessThanOrEqual(
      IDLE_SECONDS,
    );
  }, 60_000);
});
