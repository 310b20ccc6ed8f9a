import pg from "pg";
import { runLoad } from "../lib/load.ts";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/** Orders in the shop, in turn (the second step adds to the first). BENCH_DASHBOARD_ORDERS replaces the last. */
export const DASHBOARD_ORDER_SIZES = [1_000, Number(process.env.BENCH_DASHBOARD_ORDERS ?? 1_000_000)] as const;
/** The dashboard's p99 at one connection, with the most orders, in every period but the year. */
export const DASHBOARD_P99_TARGET_MS = 200;
/** Orders are seeded this many at a time (each goes through the totals' trigger). */
const SEED_BATCH = 50_000;
/** One order every 63 s: a million orders cover two years, about 1,400 a day. */
const SECONDS_BETWEEN_ORDERS = 63.072;

const PERIODS = [
  { request: "GET /admin (Today)", path: "/admin" },
  { request: "GET /admin?period=last-7-days", path: "/admin?period=last-7-days" },
  { request: "GET /admin?period=last-30-days", path: "/admin?period=last-30-days" },
] as const;

/**
 * Orders g in [$2, $3], the newest paid at $1 and each one 63 s before the next: 1 to 3 lines of 60 products, a
 * discount on one in ten, shipping under $50, 7.25 % tax, test mode (the bench's shop takes test cards), shipped
 * after two days, one in a thousand oversold; and a refund of one order in twenty a day after it was paid (a third,
 * or all of one in five). All through the totals' triggers, as the shop's own writes.
 */
export const SEED_ORDERS = `
  insert into orders (id, number, amount_cents, currency, items, pricing, created_at, paid_at, status, livemode, processor, oversold)
  select 'pi_benchdash' || lpad(g::text, 8, '0'), 'SF-BENCH-' || g, priced.total, 'usd', lines.items,
         jsonb_build_object('itemsCents', lines.items_cents, 'discountCents', lines.discount_cents, 'shippingCents', priced.shipping,
           'totalBeforeTaxCents', lines.items_cents - lines.discount_cents + priced.shipping, 'taxCents', priced.tax, 'totalCents', priced.total,
           'lines', lines.lines, 'shipping', null, 'deliveryOptions', '[]'::jsonb, 'isUndeliverable', false, 'taxes', '[]'::jsonb, 'promotion', null),
         paid.at, paid.at, case when paid.at < $1::timestamptz - interval '2 days' then 'shipped' else 'paid' end, false, 'built-in', g % 1000 = 0
  from generate_series($2::int, $3::int) as g
  cross join lateral (select $1::timestamptz - make_interval(secs => g * ${SECONDS_BETWEEN_ORDERS}) as at) as paid
  cross join lateral (
    select jsonb_agg(jsonb_build_object('productId', 'bench-product-' || line.product, 'title', 'Bench product ' || line.product, 'priceCents', line.unit,
             'quantity', line.quantity, 'rating', 4, 'image', jsonb_build_object('src', '/images/products/12321341.webp', 'width', 400, 'height', 400)) order by line.i) as items,
           jsonb_agg(jsonb_build_object('key', line.i::text, 'title', 'Bench product ' || line.product, 'unitPriceCents', line.unit, 'quantity', line.quantity,
             'amountCents', line.unit * line.quantity, 'discountCents', line.discount, 'taxCents', 0) order by line.i) as lines,
           sum(line.unit * line.quantity)::int as items_cents, sum(line.discount)::int as discount_cents
    from (
      select i, (g * 7 + i * 13) % 60 as product, 1 + (g + i) % 3 as quantity, 500 + (g * 31 + i * 17) % 9500 as unit,
             case when g % 10 = 0 then ((500 + (g * 31 + i * 17) % 9500) * (1 + (g + i) % 3)) / 10 else 0 end as discount
      from generate_series(1, 1 + g % 3) as i
    ) as line
  ) as lines
  cross join lateral (
    select shipping, tax, lines.items_cents - lines.discount_cents + shipping + tax as total
    from (select case when lines.items_cents < 5000 then 499 else 0 end as shipping,
                 ((lines.items_cents - lines.discount_cents) * 725 + 5000) / 10000 as tax) as figures
  ) as priced`;

export const SEED_REFUNDS = `
  insert into order_refunds (id, order_id, amount_cents, actor, created_at)
  select 're_benchdash' || lpad(g::text, 8, '0'), 'pi_benchdash' || lpad(g::text, 8, '0'),
         case when g % 100 = 0 then orders.amount_cents else greatest(orders.amount_cents / 3, 1) end, 'bench', orders.paid_at + interval '1 day'
  from generate_series($1::int, $2::int) as g
  join orders on orders.id = 'pi_benchdash' || lpad(g::text, 8, '0')
  where g % 20 = 0 and orders.paid_at + interval '1 day' < now()`;

/** The dashboard's two statements on the totals (server/admin/sales-dashboard.ts), for EXPLAIN ANALYZE's timing. */
function statements(days: number): Record<string, string> {
  const range = `starts_at >= date_trunc('day', now()) - interval '${days - 1} days' and starts_at < date_trunc('day', now()) + interval '1 day'`;
  return {
    [`figures by day, ${days} days`]: `select width_bucket(starts_at, array(select generate_series(date_trunc('day', now()) - interval '${days - 1} days', date_trunc('day', now()), interval '1 day'))) as day,
        sum(orders)::bigint, sum(items_sold)::bigint, sum(gross_cents)::bigint, sum(discount_cents)::bigint, sum(refund_cents)::bigint,
        sum(shipping_cents)::bigint, sum(tax_cents)::bigint
      from sales_totals where livemode = false and ${range} group by 1`,
    // In UTC (the bench's shop) a period is whole UTC days: the daily totals alone, no quarter hours at its ends.
    [`top products, ${days} days`]: `select product_id, max(title), sum(quantity)::bigint, sum(gross_cents - discount_cents - refund_cents)::bigint as net
      from product_sales_by_day where livemode = false and day >= current_date - ${days - 1} and day < current_date + 1
      group by product_id order by net desc, product_id limit 5`,
  };
}

interface PeriodResult {
  request: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export interface DashboardAtSize {
  orders: number;
  refunds: number;
  seedSeconds: number;
  totalsRows: number;
  productTotalsRows: number;
  productDayRows: number;
  periods: PeriodResult[];
  /** Execution time of each statement by EXPLAIN ANALYZE, ms. */
  statementMs: Record<string, number>;
}

export interface DashboardResult {
  sizes: DashboardAtSize[];
  serverErrorLogLines: number;
  /** The first of them, to say what went wrong. */
  serverErrors: string[];
}

/**
 * The sales dashboard (/admin) as an operator at one connection, Today, Last 7 days, Last 30 days and a custom year,
 * with 1,000 and 1,000,000 orders (and a refund of one in twenty) generated straight into the server's PostgreSQL
 * database through the totals' triggers, and the execution time of the dashboard's statements on the totals.
 * PostgreSQL only; target: p99 under 200 ms with a million orders.
 */
export const dashboardScenario: Scenario<DashboardResult> = {
  name: "dashboard",
  title: "Sales dashboard (1,000 and 1,000,000 orders, one connection)",
  scope: "each-database",
  databases: ["postgres"],
  plannedSeconds: (settings) =>
    DASHBOARD_ORDER_SIZES.length * (PERIODS.length + 1) * (settings.warmupS + settings.durationS) + 900,

  async run({ server, settings, log }) {
    if (!server.databaseUrl) throw new Error("the dashboard scenario needs the server's PostgreSQL URL");
    const errorLinesBefore = server.errorLog().count;
    await waitUntilIdle(server.pid);
    const db = new pg.Client({
      connectionString: server.databaseUrl,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 1_800_000,
    });
    await db.connect();
    try {
      const email = `bench-dashboard-${Date.now()}@example.com`;
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
      const today = newest.toISOString().slice(0, 10);
      const yearAgo = new Date(newest.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
      const requests = [
        ...PERIODS,
        { request: "GET /admin (a custom year)", path: `/admin?period=custom&from=${yearAgo}&to=${today}` },
      ];
      const sizes: DashboardAtSize[] = [];
      let stored = 0;
      for (const size of DASHBOARD_ORDER_SIZES) {
        const started = performance.now();
        for (let from = stored + 1; from <= size; from += SEED_BATCH) {
          const to = Math.min(size, from + SEED_BATCH - 1);
          await db.query(SEED_ORDERS, [newest, from, to]);
          await db.query(SEED_REFUNDS, [from, to]);
          log(
            `${server.label}: orders ${integer(to)} of ${integer(size)} (${round((performance.now() - started) / 1000, 0)} s)`,
          );
        }
        await db.query(
          "vacuum analyze orders, order_refunds, sales_totals, product_sales_totals, product_sales_by_day",
        );
        stored = size;
        const seedSeconds = round((performance.now() - started) / 1000, 1);
        const count = async (sql: string) => Number((await db.query<{ count: string }>(sql)).rows[0]?.count ?? 0);
        const periods: PeriodResult[] = [];
        for (const { request, path } of requests) {
          const result = await runLoad({
            url: `${server.baseUrl}${path}`,
            connections: 1,
            durationS: settings.durationS,
            warmupS: settings.warmupS,
            headers: { ...BROWSER_HEADERS, cookie },
          });
          log(
            `  ${integer(stored)} orders, ${request}: ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, non-2xx ${result.non2xx}`,
          );
          periods.push({ request, rps: round(result.rps, 1), p50: result.p50, p99: result.p99, non2xx: result.non2xx });
        }
        const statementMs: Record<string, number> = {};
        for (const days of [30, 366]) {
          for (const [name, statement] of Object.entries(statements(days))) {
            const { rows } = await db.query(`explain (analyze, format json) ${statement}`);
            statementMs[name] = round(
              Number(
                (rows[0] as { "QUERY PLAN": { "Execution Time": number }[] })["QUERY PLAN"][0]?.["Execution Time"] ?? 0,
              ),
              2,
            );
          }
        }
        sizes.push({
          orders: stored,
          refunds: await count("select count(*) from order_refunds where id like 're_benchdash%'"),
          seedSeconds,
          totalsRows: await count("select count(*) from sales_totals"),
          productTotalsRows: await count("select count(*) from product_sales_totals"),
          productDayRows: await count("select count(*) from product_sales_by_day"),
          periods,
          statementMs,
        });
      }
      const errors = server.errorLog(errorLinesBefore);
      return { sizes, serverErrorLogLines: errors.count - errorLinesBefore, serverErrors: errors.first };
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
        const rows = result.sizes.flatMap((size) =>
          size.periods.map((period, index) => [
            index === 0 ? integer(size.orders) : "",
            period.request,
            integer(period.rps),
            ms(period.p50),
            ms(period.p99),
            integer(period.non2xx),
          ]),
        );
        const seeded = result.sizes.map(
          (size) =>
            `${integer(size.orders)} orders and ${integer(size.refunds)} refunds seeded in ${size.seedSeconds} s through the triggers: ${integer(size.totalsRows)} rows of ` +
            `sales_totals, ${integer(size.productTotalsRows)} of product_sales_totals, ${integer(size.productDayRows)} of product_sales_by_day. Statements (EXPLAIN ANALYZE): ` +
            Object.entries(size.statementMs)
              .map(([name, value]) => `${name} ${value} ms`)
              .join(", ") +
            ".",
        );
        return [
          `${measurement.databaseLabel}:`,
          "",
          table(["Orders", "Request", "req/s", "p50", "p99", "Non-2xx"], rows, ["r", "l", "r", "r", "r", "r"]),
          "",
          ...seeded.flatMap((line) => [line, ""]),
          `Target: p99 under ${DASHBOARD_P99_TARGET_MS} ms with ${integer(result.sizes.at(-1)?.orders ?? 0)} orders (Today, 7 and 30 days). Server error log lines: ${result.serverErrorLogLines}.`,
          ...(result.serverErrors.length > 0 ? ["", "```", ...result.serverErrors, "```"] : []),
        ].join("\n");
      })
      .join("\n\n");
  },

  missedTargets(result, databaseLabel) {
    const largest = result.sizes.at(-1);
    return (largest?.periods ?? [])
      .filter((period) => !period.request.includes("custom") && period.p99 >= DASHBOARD_P99_TARGET_MS)
      .map(
        (period) =>
          `${databaseLabel}: ${period.request} p99 ${ms(period.p99)} with ${integer(largest?.orders ?? 0)} orders`,
      );
  },
};
