import { createHash } from "node:crypto";
import pg from "pg";
import { runLoad, type LoadResult } from "../lib/load.ts";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, median, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import type { RunningServer } from "../lib/server.ts";
import type { Settings } from "../lib/settings.ts";
import {
  addToBasket,
  BENCH_PRODUCT,
  findPaymentConfig,
  newShopper,
  payForBasket,
  SESSION_COOKIE,
  timedFetch,
} from "../lib/shop-client.ts";
import { BASKET_SHOPPERS, runBasketLoad } from "./basket.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/** Orders of the one shopper, in turn (each step adds to the last). */
export const ORDER_COUNTS = [10, 1_000, 100_000] as const;
/** Other shoppers' baskets (a session, a basket, one item each) stored before the basket is measured again. */
export const OTHER_BASKETS = 100_000;
/** The page whose cursor `GET /orders?before=` uses (or the last page, when there are fewer). */
export const CURSOR_PAGE = 50;
/** The app's page size (shared/orders.ts); only used to say which order a page starts after. */
const PAGE_SIZE = 20;
/**
 * p99(100k) ÷ p99(the smallest size that fills a page) up to this counts as flat: p99 of a short run is noisy (see
 * the README). With 10 orders the page lists 10, with 1,000 or more a full page of 20, so the verdict compares sizes
 * that render the same page; the ratio from 10 is reported beside it.
 */
export const FLAT_RATIO = 1.5;

export interface EndpointAtSize {
  /** "GET /orders" or "GET /orders?before=…". */
  request: string;
  /** Medians over rounds. */
  rps: number;
  p50: number;
  p99: number;
  /** Sums over rounds. */
  errors: number;
  non2xx: number;
  rounds: LoadResult[];
}

/** The endpoints measured at each table size, as one table: the size ("Orders", "Products") on each group's first row. */
export function endpointsAtSizesTable(
  sizeHeader: string,
  sizes: { size: number; endpoints: EndpointAtSize[] }[],
): string {
  const rows = sizes.flatMap(({ size, endpoints }) =>
    endpoints.map((endpoint, index) => [
      index === 0 ? integer(size) : "",
      endpoint.request,
      integer(endpoint.rps),
      ms(endpoint.p50),
      ms(endpoint.p99),
      integer(endpoint.errors),
      integer(endpoint.non2xx),
    ]),
  );
  return table([sizeHeader, "Request", "req/s", "p50", "p99", "Errors", "Non-2xx"], rows, [
    "r",
    "l",
    "r",
    "r",
    "r",
    "r",
    "r",
  ]);
}

export interface OrdersAtSize {
  /** The shopper's orders. */
  orders: number;
  /** Seconds to insert the orders added at this step (and ANALYZE). */
  seedSeconds: number;
  /** Which page the cursor opens (min(CURSOR_PAGE, last page)); 1 means a cursor later than every order. */
  cursorPage: number;
  cursor: string;
  /** How the cursor was found: by following the pages' "Older orders" links, and whether the database agrees. */
  cursorFrom: "pages" | "synthetic";
  cursorMatchesDatabase: boolean;
  /** Orders listed on that page (20, or what the last page holds). */
  ordersOnCursorPage: number;
  list: EndpointAtSize;
  older: EndpointAtSize;
}

export interface BasketAtSize {
  /** Baskets stored when measured (all shoppers'). */
  baskets: number;
  seedSeconds: number;
  rps: number;
  p50: number;
  p99: number;
  add: { p50: number; p99: number };
  remove: { p50: number; p99: number; unexpected: number };
  errors: number;
  non2xx: number;
  rounds: LoadResult[];
}

export interface GrowthResult {
  /** Seconds waited at the start for the server to go quiet (after the soak, it may still be delivering webhooks). */
  settledAfterS: number;
  orders: OrdersAtSize[];
  /** p99 at 100,000 orders ÷ p99 at 10 (and the same for p50), per request. */
  /** From the smallest size with a full page (the verdict's baseline) to the largest. */
  ordersP99Ratio: { list: number; older: number };
  ordersP50Ratio: { list: number; older: number };
  /** From the smallest size (10: a page of 10 orders instead of 20) to the largest, for reference. */
  ordersP99RatioFromSmallest?: { list: number; older: number };
  /** The size the verdict's ratios start from. */
  baselineOrders?: number;
  basket: BasketAtSize[];
  basketP99Ratio: number;
  /** Whether every ratio is at most FLAT_RATIO. */
  flat: boolean;
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

/**
 * How the app copes with data that grows: one guest shopper's orders page with 10, 1,000 and 100,000 orders, and the
 * basket actions with 100,000 other baskets stored. Rows are inserted straight into the server's PostgreSQL database
 * (generate_series), never through HTTP. PostgreSQL only: PGlite's data directory belongs to the server process.
 */
export const growthScenario: Scenario<GrowthResult> = {
  name: "growth",
  title: "Growth (orders and baskets)",
  scope: "each-database",
  databases: ["postgres"],
  // Per order count, the two requests; the basket before and after. Seeding adds about a minute.
  plannedSeconds: (settings) =>
    (ORDER_COUNTS.length * 2 + 2) * settings.rounds * (settings.warmupS + settings.durationS) + 60,

  async run({ server, settings, log }) {
    if (!server.databaseUrl) throw new Error("the growth scenario needs the server's PostgreSQL URL");
    const errorLinesBefore = server.errorLog().count;
    const settledAfterS = await waitUntilIdle(server.pid);
    if (settledAfterS > 1.5) log(`${server.label}: waited ${settledAfterS} s for the server to go quiet`);
    const db = new pg.Client({
      connectionString: server.databaseUrl,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 300_000,
    });
    await db.connect();
    try {
      // One guest shopper with one real order (paid through the shop), whose items the seeded orders copy.
      log(`${server.label}: a shopper with one paid order`);
      const payment = await findPaymentConfig(server.baseUrl);
      const first = await addToBasket(server.baseUrl, undefined);
      const cookie = first.cookie;
      const realOrderId = await payForBasket(server.baseUrl, cookie, payment, first.basket.subtotalCents);
      const sessionId = await sessionIdOf(db, cookie);
      const realOrder = await db.query<{ session_id: string | null; paid_at: Date }>(
        "select session_id, paid_at from orders where id = $1",
        [realOrderId],
      );
      if (realOrder.rows[0]?.session_id !== sessionId)
        throw new Error(`order ${realOrderId} does not belong to the shopper's session ${sessionId}`);
      const newest = realOrder.rows[0].paid_at;

      const orders: OrdersAtSize[] = [];
      let stored = 1;
      for (const count of ORDER_COUNTS) {
        const started = performance.now();
        log(`${server.label}: seeding orders ${stored + 1}–${count} for the shopper`);
        // Paid before the real one, a second apart, ids pi_benchgrowth… and numbers of their own (the random default
        // would clash within a month at these counts).
        await db.query(
          `insert into orders (id, number, user_id, session_id, amount_cents, currency, items, created_at, paid_at)
           select 'pi_benchgrowth' || lpad(g::text, 7, '0'), 'SF-BENCH-' || g, null, $1, t.amount_cents, t.currency, t.items,
                  date_trunc('second', $2::timestamptz) - make_interval(secs => g),
                  date_trunc('second', $2::timestamptz) - make_interval(secs => g)
           from generate_series($3::int, $4::int) as g,
                (select amount_cents, currency, items from orders where id = $5) as t`,
          [sessionId, newest, stored, count - 1, realOrderId],
        );
        // As autovacuum would soon after such an insert: the planner then knows how many rows there are.
        await db.query("analyze orders");
        stored = count;
        const seedSeconds = round((performance.now() - started) / 1000, 1);
        const stats = await db.query<{ n: string }>("select count(*) as n from orders where session_id = $1", [
          sessionId,
        ]);
        if (Number(stats.rows[0]?.n) !== count)
          throw new Error(`the shopper has ${stats.rows[0]?.n} orders, expected ${count}`);

        const cursor = await findCursor(server.baseUrl, cookie, db, sessionId, count);
        log(
          `${server.label}: ${integer(count)} orders (seeded in ${seedSeconds} s); cursor of page ${cursor.page}` +
            (cursor.matchesDatabase ? "" : " (WARNING: the pages' links disagree with the database)"),
        );
        const list = await measure(server, settings, log, "GET /orders", "/orders", cookie);
        const older = await measure(
          server,
          settings,
          log,
          `GET /orders?before=<page ${cursor.page}>`,
          `/orders?before=${encodeURIComponent(cursor.cursor)}`,
          cookie,
        );
        orders.push({
          orders: count,
          seedSeconds,
          cursorPage: cursor.page,
          cursor: cursor.cursor,
          cursorFrom: cursor.from,
          cursorMatchesDatabase: cursor.matchesDatabase,
          ordersOnCursorPage: cursor.ordersOnPage,
          list,
          older,
        });
      }

      // The basket, with the baskets that exist by now (earlier scenarios' shoppers), then with 100,000 more.
      log(`${server.label}: creating ${Math.max(BASKET_SHOPPERS, settings.connections)} shoppers for the basket load`);
      const cookies: string[] = [];
      for (let index = 0; index < Math.max(BASKET_SHOPPERS, settings.connections); index += 1)
        cookies.push((await newShopper(server.baseUrl)).cookie);
      const basket: BasketAtSize[] = [];
      basket.push(await measureBasket(server, settings, log, cookies, db, 0));
      const started = performance.now();
      log(`${server.label}: seeding ${integer(OTHER_BASKETS)} other baskets (a session, a basket and one item each)`);
      await db.query(
        `with s as (
           insert into sessions (token_hash, expires_at)
           select 'bench-growth-' || g || '-' || md5(random()::text), now() + interval '30 days' from generate_series(1, $1::int) as g
           returning id
         ), b as (
           insert into baskets (session_id) select id from s returning id
         )
         insert into basket_items (basket_id, product_id, added_price_cents) select id, $2, $3 from b`,
        [OTHER_BASKETS, BENCH_PRODUCT.id, BENCH_PRODUCT.priceCents],
      );
      await db.query("analyze sessions; analyze baskets; analyze basket_items");
      basket.push(
        await measureBasket(server, settings, log, cookies, db, round((performance.now() - started) / 1000, 1)),
      );

      const smallest = orders[0]!;
      const baseline = orders.find((size) => size.orders >= PAGE_SIZE) ?? smallest;
      const last = orders.at(-1)!;
      const ratio = (a: number, b: number) => round(a / b, 2);
      const ordersP99Ratio = {
        list: ratio(last.list.p99, baseline.list.p99),
        older: ratio(last.older.p99, baseline.older.p99),
      };
      const ordersP50Ratio = {
        list: ratio(last.list.p50, baseline.list.p50),
        older: ratio(last.older.p50, baseline.older.p50),
      };
      const ordersP99RatioFromSmallest = {
        list: ratio(last.list.p99, smallest.list.p99),
        older: ratio(last.older.p99, smallest.older.p99),
      };
      const basketP99Ratio = ratio(basket[1]!.p99, basket[0]!.p99);
      const errorLog = server.errorLog(errorLinesBefore);
      return {
        settledAfterS,
        orders,
        ordersP99Ratio,
        ordersP50Ratio,
        ordersP99RatioFromSmallest,
        baselineOrders: baseline.orders,
        basket,
        basketP99Ratio,
        flat: [ordersP99Ratio.list, ordersP99Ratio.older, basketP99Ratio].every((value) => value <= FLAT_RATIO),
        serverErrorLogLines: errorLog.count - errorLinesBefore,
        serverErrorLogSample: errorLog.first,
      };
    } finally {
      await db.end().catch(() => {});
    }
  },

  missedTargets(result, databaseLabel) {
    const missed: string[] = [];
    const { ordersP99Ratio, basketP99Ratio } = result;
    const from = integer(result.baselineOrders ?? ORDER_COUNTS[0]!);
    if (ordersP99Ratio.list > FLAT_RATIO)
      missed.push(`growth (${databaseLabel}): GET /orders p99 ×${ordersP99Ratio.list} from ${from} to 100,000 orders`);
    if (ordersP99Ratio.older > FLAT_RATIO)
      missed.push(
        `growth (${databaseLabel}): GET /orders?before= p99 ×${ordersP99Ratio.older} from ${from} to 100,000 orders`,
      );
    if (basketP99Ratio > FLAT_RATIO)
      missed.push(`growth (${databaseLabel}): basket add/remove p99 ×${basketP99Ratio} with 100,000 other baskets`);
    const failing = [...result.orders.flatMap((size) => [size.list, size.older]), ...result.basket].filter(
      (figures) => figures.errors + figures.non2xx > 0,
    );
    if (failing.length > 0)
      missed.push(`growth (${databaseLabel}): errors or non-2xx answers in ${failing.length} measurement(s)`);
    return missed;
  },

  render(measurements, settings) {
    const measured = measurements.filter((measurement) => measurement.result);
    if (measured.length === 0) {
      return (
        `Not measured: ${measurements[0]?.error ?? "no PostgreSQL server in this run"}. ` +
        "This scenario runs on PostgreSQL only (it seeds the database directly, which PGlite's single-process data directory does not allow)."
      );
    }
    const sections: string[] = [];
    for (const measurement of measured) {
      const result = measurement.result!;
      const orderRows: (string | number)[][] = [];
      for (const size of result.orders) {
        for (const figures of [size.list, size.older]) {
          orderRows.push([
            figures === size.list ? integer(size.orders) : "",
            figures === size.list
              ? "GET /orders"
              : `GET /orders?before= (page ${size.cursorPage}${size.cursorFrom === "synthetic" ? ", synthetic cursor" : ""})`,
            integer(figures.rps),
            ms(figures.p50),
            ms(figures.p99),
            integer(figures.errors),
            integer(figures.non2xx),
          ]);
        }
      }
      const ordersTable = table(["Orders", "Request", "req/s", "p50", "p99", "Errors", "Non-2xx"], orderRows, [
        "r",
        "l",
        "r",
        "r",
        "r",
        "r",
        "r",
      ]);
      const basketTable = table(
        [
          "Baskets stored",
          "req/s (add + remove)",
          "p50",
          "p99",
          "add p50 / p99",
          "remove p50 / p99",
          "Errors",
          "Non-2xx",
          "Removed nothing",
        ],
        result.basket.map((size) => [
          integer(size.baskets),
          integer(size.rps),
          ms(size.p50),
          ms(size.p99),
          `${ms(size.add.p50)} / ${ms(size.add.p99)}`,
          `${ms(size.remove.p50)} / ${ms(size.remove.p99)}`,
          integer(size.errors),
          integer(size.non2xx),
          integer(size.remove.unexpected),
        ]),
        ["r", "r", "r", "r", "r", "r", "r", "r", "r"],
      );
      const verdict = (value: number) => `×${value.toFixed(2)} ${value <= FLAT_RATIO ? "(flat)" : "**(grows)**"}`;
      const warnings: string[] = [];
      for (const size of result.orders) {
        if (!size.cursorMatchesDatabase) {
          warnings.push(
            `${integer(size.orders)} orders: the cursor found by following "Older orders" does not open page ${size.cursorPage} as the database orders them (pagination skips or repeats orders).`,
          );
        }
        const expected = Math.min(PAGE_SIZE, size.orders - (size.cursorPage - 1) * PAGE_SIZE);
        if (size.ordersOnCursorPage !== expected)
          warnings.push(
            `${integer(size.orders)} orders: page ${size.cursorPage} lists ${size.ordersOnCursorPage} orders, expected ${expected}.`,
          );
      }
      if (result.serverErrorLogLines > 0)
        warnings.push(
          `the server logged ${result.serverErrorLogLines} error line(s) during this scenario (see the JSON).`,
        );
      sections.push(
        [
          `${measurement.databaseLabel}:`,
          "",
          ordersTable,
          "",
          `p99 from ${integer(result.baselineOrders ?? ORDER_COUNTS[0]!)} (the first size with a full page of ${PAGE_SIZE}) to ${integer(ORDER_COUNTS.at(-1)!)} orders: ` +
            `GET /orders ${verdict(result.ordersP99Ratio.list)}, GET /orders?before= ${verdict(result.ordersP99Ratio.older)} ` +
            `(p50: ×${result.ordersP50Ratio.list.toFixed(2)}, ×${result.ordersP50Ratio.older.toFixed(2)})` +
            (result.ordersP99RatioFromSmallest
              ? `; from ${integer(ORDER_COUNTS[0]!)} orders (a page of ${integer(ORDER_COUNTS[0]!)}): ×${result.ordersP99RatioFromSmallest.list.toFixed(2)}, ×${result.ordersP99RatioFromSmallest.older.toFixed(2)}.`
              : "."),
          "",
          basketTable,
          "",
          `Basket add/remove p99 with ${integer(OTHER_BASKETS)} other baskets: ${verdict(result.basketP99Ratio)}.`,
          ...warnings.map((warning) => `\n⚠️ ${warning}`),
        ].join("\n"),
      );
    }
    const how =
      `PostgreSQL only (PGlite's data directory cannot be opened by a second process while the server runs). One guest shopper's ` +
      `orders page with ${ORDER_COUNTS.map(integer).join(", ")} orders (one paid through the shop, the rest inserted straight into the ` +
      "database with generate_series, a second apart, then ANALYZE), and an older page through the cursor of page " +
      `${CURSOR_PAGE} (or the last page) as the page's "Older orders" link gives it; then basket add/remove as in "Basket actions" ` +
      `before and after ${integer(OTHER_BASKETS)} other baskets (session, basket, one item each) are inserted. ` +
      `${settings.connections} connections, ${settings.durationS} s after a ${settings.warmupS} s warm-up per figure` +
      (settings.rounds > 1 ? `, median of ${settings.rounds} rounds` : "") +
      `. Flat means p99 at the largest size is at most ${FLAT_RATIO}× p99 at the smallest.`;
    return [how, "", ...sections].join("\n");
  },
};

/** The session row of a cookie: the SHA-256 of its token, base64url, as server/sessions/session-service.ts stores it. */
async function sessionIdOf(db: pg.Client, cookie: string): Promise<string> {
  const token = cookie.slice(`${SESSION_COOKIE}=`.length);
  const hash = createHash("sha256").update(token).digest("base64url");
  const found = await db.query<{ id: string }>("select id from sessions where token_hash = $1", [hash]);
  if (!found.rows[0]) throw new Error("found no session for the shopper's cookie in the database");
  return found.rows[0].id;
}

/**
 * The cursor that opens page min(CURSOR_PAGE, last page), found as a shopper would: following the "Older orders"
 * link from page to page. It is checked against the database's own order (the last order of the page before). With a
 * single page there is no link: a cursor later than every order (which lists page 1 through the same query) is used.
 */
async function findCursor(
  baseUrl: string,
  cookie: string,
  db: pg.Client,
  sessionId: string,
  count: number,
): Promise<{
  page: number;
  cursor: string;
  from: "pages" | "synthetic";
  matchesDatabase: boolean;
  ordersOnPage: number;
}> {
  const lastPage = Math.ceil(count / PAGE_SIZE);
  const page = Math.min(CURSOR_PAGE, lastPage);
  const ordersOn = async (path: string) => {
    const response = await timedFetch(`${baseUrl}${path}`, { headers: { accept: "text/html", cookie } });
    if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}`);
    const next = /<a\b[^>]*href="\/orders\?before=([^"]+)"[^>]*>Older orders<\/a>/.exec(response.body)?.[1];
    return {
      next: next ? decodeURIComponent(next.replace(/&amp;/g, "&")) : undefined,
      orders: (response.body.match(/data-testid="order"/g) ?? []).length,
    };
  };
  if (page === 1) {
    const newest = await db.query<{ at: Date }>("select max(paid_at) as at from orders where session_id = $1", [
      sessionId,
    ]);
    const cursor = `${new Date(newest.rows[0]!.at.getTime() + 1_000).toISOString()}~pi_zzzzzzzz`;
    const { orders } = await ordersOn(`/orders?before=${encodeURIComponent(cursor)}`);
    return { page, cursor, from: "synthetic", matchesDatabase: true, ordersOnPage: orders };
  }
  let cursor: string | undefined;
  for (let current = 1; current < page; current += 1) {
    const { next } = await ordersOn(cursor ? `/orders?before=${encodeURIComponent(cursor)}` : "/orders");
    if (!next) throw new Error(`page ${current} of ${lastPage} has no "Older orders" link`);
    cursor = next;
  }
  const { orders } = await ordersOn(`/orders?before=${encodeURIComponent(cursor!)}`);
  const expected = await db.query<{ paid_at: Date; id: string }>(
    "select paid_at, id from orders where session_id = $1 order by paid_at desc, id desc offset $2 limit 1",
    [sessionId, (page - 1) * PAGE_SIZE - 1],
  );
  const row = expected.rows[0];
  const matchesDatabase = row !== undefined && cursor === `${row.paid_at.toISOString()}~${row.id}`;
  return { page, cursor: cursor!, from: "pages", matchesDatabase, ordersOnPage: orders };
}

export async function measure(
  server: RunningServer,
  settings: Settings,
  log: (message: string) => void,
  request: string,
  path: string,
  cookie: string,
): Promise<EndpointAtSize> {
  const rounds: LoadResult[] = [];
  for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
    log(
      `${server.label}: ${request}, round ${roundIndex + 1}/${settings.rounds} (${settings.warmupS} s warm-up + ${settings.durationS} s, ${settings.connections} connections)`,
    );
    const result = await runLoad({
      url: `${server.baseUrl}${path}`,
      connections: settings.connections,
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      headers: { ...BROWSER_HEADERS, ...(cookie ? { cookie } : {}) },
    });
    log(
      `  ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, errors ${result.errors}, non-2xx ${result.non2xx}`,
    );
    rounds.push(result);
  }
  return {
    request,
    rps: round(median(rounds.map((r) => r.rps)), 1),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    rounds,
  };
}

async function measureBasket(
  server: RunningServer,
  settings: Settings,
  log: (message: string) => void,
  cookies: string[],
  db: pg.Client,
  seedSeconds: number,
): Promise<BasketAtSize> {
  const stored = await db.query<{ n: string }>("select count(*) as n from baskets");
  const baskets = Number(stored.rows[0]?.n ?? 0);
  const rounds: LoadResult[] = [];
  for (let roundIndex = 0; roundIndex < settings.rounds; roundIndex += 1) {
    log(
      `${server.label}: basket add/remove with ${integer(baskets)} baskets stored, round ${roundIndex + 1}/${settings.rounds}`,
    );
    const result = await runBasketLoad(server.baseUrl, cookies, settings);
    log(
      `  ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, errors ${result.errors}, non-2xx ${result.non2xx}`,
    );
    rounds.push(result);
  }
  const perAction = (action: "add" | "remove") =>
    rounds.map((r) => r.perRequest?.[action]).filter((figures) => figures !== undefined);
  return {
    baskets,
    seedSeconds,
    rps: round(median(rounds.map((r) => r.rps)), 1),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    add: { p50: median(perAction("add").map((f) => f.p50)), p99: median(perAction("add").map((f) => f.p99)) },
    remove: {
      p50: median(perAction("remove").map((f) => f.p50)),
      p99: median(perAction("remove").map((f) => f.p99)),
      unexpected: perAction("remove").reduce((sum, f) => sum + f.unexpected, 0),
    },
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    rounds,
  };
}
