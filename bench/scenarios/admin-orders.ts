import pg from "pg";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, round } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { endpointsAtSizesTable, measure, type EndpointAtSize } from "./growth.ts";

/** Orders in the shop, in turn (the second step adds to the first). */
export const ADMIN_ORDER_SIZES = [1_000, 1_000_000] as const;
/** The first page's p99 with a million orders may be at most this many times its p99 with a thousand (flat). */
export const FLAT_P99_FACTOR = 2;

export interface AdminOrdersAtSize {
  orders: number;
  seedSeconds: number;
  endpoints: EndpointAtSize[];
}

export interface AdminOrdersResult {
  sizes: AdminOrdersAtSize[];
  /** p99 of the first page with the most orders ÷ with the fewest. */
  firstPageP99Ratio: number;
  serverErrorLogLines: number;
}

/**
 * The operator console's list of all orders (/admin/orders) with 1,000 and 1,000,000 orders: the first page, a page
 * in the middle (keyset cursor), a status filter and an e-mail search, as a signed-in operator. Orders are generated
 * with generate_series straight into the server's PostgreSQL database (one in six of each status, one e-mail per
 * thousand orders). PostgreSQL only, as growth; it runs last.
 */
export const adminOrdersScenario: Scenario<AdminOrdersResult> = {
  name: "adminOrders",
  title: "Console orders list (1,000 and 1,000,000 orders)",
  scope: "each-database",
  databases: ["postgres"],
  plannedSeconds: (settings) =>
    ADMIN_ORDER_SIZES.length * 4 * settings.rounds * (settings.warmupS + settings.durationS) + 120,

  async run({ server, settings, log }) {
    if (!server.databaseUrl) throw new Error("the console orders scenario needs the server's PostgreSQL URL");
    const errorLinesBefore = server.errorLog().count;
    await waitUntilIdle(server.pid);
    const db = new pg.Client({
      connectionString: server.databaseUrl,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 900_000,
    });
    await db.connect();
    try {
      // An operator: an account registered through /login, given the role in the database.
      const email = `bench-operator-${Date.now()}@example.com`;
      const registered = await fetch(`${server.baseUrl}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
        body: new URLSearchParams({ intent: "register", email, password: "bench operator violet tractor" }),
      });
      const cookie = /sf_session=[^;]+/.exec(registered.headers.get("set-cookie") ?? "")?.[0];
      if (!cookie)
        throw new Error(`registering the bench operator answered ${registered.status} without a session cookie`);
      await db.query("insert into operators (user_id) select id from users where email = $1", [email]);

      const newest = new Date();
      const sizes: AdminOrdersAtSize[] = [];
      let stored = 0;
      for (const size of ADMIN_ORDER_SIZES) {
        const started = performance.now();
        log(`${server.label}: generating orders ${stored + 1}–${size}`);
        await db.query(
          `insert into orders (id, number, user_id, session_id, amount_cents, currency, items, created_at, paid_at, status, contact_email, livemode, processor)
           select 'pi_benchconsole' || lpad(g::text, 8, '0'), 'SF-CONSOLE-' || g, null, null, 1196, 'usd',
                  '[{"productId":"12321341","title":"A book","priceCents":1196,"quantity":1,"rating":4,"image":{"src":"/images/products/12321341.webp","width":400,"height":400}}]'::jsonb,
                  $1::timestamptz - make_interval(secs => g), $1::timestamptz - make_interval(secs => g),
                  (array['paid','shipped','cancelled','refunded','partially_refunded','disputed'])[1 + g % 6],
                  'buyer' || (g / 1000) || '@example.com', false, 'built-in'
           from generate_series($2::int, $3::int) as g`,
          [newest, stored + 1, size],
        );
        await db.query("analyze orders");
        stored = size;
        const seedSeconds = round((performance.now() - started) / 1000, 1);
        log(`${server.label}: ${integer(stored)} orders (seeded in ${seedSeconds} s)`);
        const middle = await db.query<{ paid_at: Date; id: string }>(
          "select paid_at, id from orders order by paid_at desc, id desc offset $1 limit 1",
          [Math.floor(stored / 2)],
        );
        const cursor = middle.rows[0] ? `${middle.rows[0].paid_at.toISOString()}~${middle.rows[0].id}` : "";
        const requests = [
          { request: "GET /admin/orders", path: "/admin/orders" },
          {
            request: "GET /admin/orders (a page in the middle)",
            path: `/admin/orders?after=${encodeURIComponent(cursor)}`,
          },
          { request: "GET /admin/orders?status=shipped", path: "/admin/orders?status=shipped" },
          { request: "GET /admin/orders?q={e-mail}", path: "/admin/orders?q=buyer0%40example.com" },
        ];
        const endpoints: EndpointAtSize[] = [];
        for (const { request, path } of requests)
          endpoints.push(await measure(server, settings, log, request, path, cookie));
        sizes.push({ orders: stored, seedSeconds, endpoints });
      }
      const firstPageP99 = (size: AdminOrdersAtSize | undefined) => size?.endpoints[0]?.p99 ?? 0;
      return {
        sizes,
        firstPageP99Ratio: round(firstPageP99(sizes.at(-1)) / Math.max(firstPageP99(sizes[0]), 1), 2),
        serverErrorLogLines: server.errorLog().count - errorLinesBefore,
      };
    } finally {
      await db.end();
    }
  },

  render(measurements) {
    const measured = measurements.filter((measurement) => measurement.result);
    if (measured.length === 0)
      return `Not measured: ${measurements[0]?.error ?? "no PostgreSQL server in this run"}. This scenario runs on PostgreSQL only.`;
    return measured
      .map((measurement) => {
        const result = measurement.result!;
        return [
          `${measurement.databaseLabel}:`,
          "",
          endpointsAtSizesTable(
            "Orders",
            result.sizes.map((size) => ({ size: size.orders, endpoints: size.endpoints })),
          ),
          "",
          `First page p99 with ${integer(result.sizes.at(-1)?.orders ?? 0)} orders: ${result.firstPageP99Ratio}× its p99 with ${integer(result.sizes[0]?.orders ?? 0)} ` +
            `(target: at most ${FLAT_P99_FACTOR}×). Server error log lines: ${result.serverErrorLogLines}.`,
        ].join("\n");
      })
      .join("\n\n");
  },

  missedTargets(result, databaseLabel) {
    return result.firstPageP99Ratio > FLAT_P99_FACTOR
      ? [`${databaseLabel}: the console's first orders page p99 at ${result.firstPageP99Ratio}× with a million orders`]
      : [];
  },
};
