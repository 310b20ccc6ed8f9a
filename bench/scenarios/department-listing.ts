import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import pg from "pg";
import { runLoad } from "../lib/load.ts";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { startShopServer, type RunningServer } from "../lib/server.ts";
import { projectRoot } from "../lib/settings.ts";
import { newShopper } from "../lib/shop-client.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/** Products in the catalogue, in turn: a small shop (the six and 24 more), then 100,000. */
export const LISTING_SIZES = [30, 100_000] as const;
/** p99 targets of the filtered department listing at one connection, at 100,000 products. */
export const LISTING_P99_TARGET_MS = { pglite: 150, postgres: 50 } as const;
/** The listing at 100,000 may take at most this many times its p99 at 30. */
export const LISTING_GROWTH_TARGET = 3;

/** A department with two sub-departments, a price filter and the sub-departments' counts (the facet counts). */
const LISTING_PATH = "/departments/computers?price=25-50";

/**
 * Generated products g in [from, to]: prices spread over $1–$1,000, ratings 1–5, one department each (of the six),
 * and every tenth sold in sizes (so that the listing's option values have something to count).
 */
const GENERATE = `
  with generated as (
    insert into products (id, slug, title, description, price_cents, rating, image, image_width, image_height, featured_position, created_at)
    select 'listing-bench-' || g, 'listing-bench-' || g,
           (array['Compact','Wireless','Curved','Portable','Smart','Classic'])[1 + g % 6] || ' ' ||
           (array['Monitor','Speaker','Mixer','Tablet','Notebook','Lamp'])[1 + (g / 6) % 6] || ' ' || g,
           'A generated product for the listing benchmark.', 100 + (g * 7919) % 100000, 1 + g % 5,
           '/images/products/12321341.webp', 400, 400, null, now() - g * interval '1 minute'
    from generate_series($1::int, $2::int) as g
    returning id
  ), sized as (
    insert into product_options (product_id, position, name, "values")
    select id, 1, 'Size', '["S", "M", "L", "XL"]' from generated where abs(hashtext(id)) % 10 = 0
  )
  insert into product_departments (department_id, product_id)
  select (select id from departments order by parent_id nulls first, position, slug offset (abs(hashtext(generated.id)) % 6) limit 1), generated.id
  from generated`;

/**
 * The three statements the page runs (server/catalogue/catalogue-listing.ts), as EXPLAIN shows their plans; the page
 * sends the departments' ids as values, as here ($computers, $monitors, $tablets are replaced by them).
 */
const LISTING_STATEMENTS = {
  optionValues: `select o.name, v.value, count(distinct o.product_id) as count, max(count(distinct o.product_id)) over (partition by o.name) as products
    from product_options o cross join lateral jsonb_array_elements_text(o."values") with ordinality as v(value, position)
    where o.product_id in (
      select products.id from products
      where products.status = 'active'
        and products.department_ids && array[$computers, $monitors, $tablets]
        and products.price_cents >= 2500 and products.price_cents < 5000
        and not (case when products.limited_stock then not exists (select 1 from product_variants v where v.product_id = products.id
          and v.on_hand > coalesce((select sum(r.quantity) from stock_reservations r where r.variant_id = v.id and r.expires_at > now()), 0)) else false end))
    group by o.name, v.value
    order by products desc, o.name, min(v.position), v.value limit 1000`,
  page: `select products.id, products.slug, products.title, products.price_cents, products.shown_rating, products.image, products.image_width, products.image_height, products.image_srcset, picked.total
    from (
      select products.id, count(*) over () as total from products
      where products.status = 'active'
        and products.department_ids && array[$computers, $monitors, $tablets]
        and products.price_cents >= 2500 and products.price_cents < 5000
        and not (case when products.limited_stock then not exists (select 1 from product_variants v where v.product_id = products.id
          and v.on_hand > coalesce((select sum(r.quantity) from stock_reservations r where r.variant_id = v.id and r.expires_at > now()), 0)) else false end)
      order by products.featured_position nulls last, products.shown_rating desc, products.id limit 24 offset 0
    ) as picked join products on products.id = picked.id
    order by products.featured_position nulls last, products.shown_rating desc, products.id`,
  departmentCounts: `select departments.id as department_id, count(distinct listed.id) as count
    from (
      select products.id, products.department_ids from products
      where products.status = 'active' and products.price_cents >= 2500 and products.price_cents < 5000
        and products.department_ids && array[$monitors, $tablets]
        and not (case when products.limited_stock then not exists (select 1 from product_variants v where v.product_id = products.id
          and v.on_hand > coalesce((select sum(r.quantity) from stock_reservations r where r.variant_id = v.id and r.expires_at > now()), 0)) else false end)
    ) as listed cross join lateral unnest(listed.department_ids) as placed (department_id)
    join departments on departments.id = placed.department_id
    where true and departments.id in ($monitors, $tablets)
    group by departments.id`,
};

interface Executor {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface ListingAtSize {
  products: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

export interface ListingResult {
  sizes: ListingAtSize[];
  /** p99 at the largest size ÷ p99 at the smallest. */
  growth: number;
  plans: Record<keyof typeof LISTING_STATEMENTS, string>;
  database: "pglite" | "postgres";
}

async function countProducts(executor: Executor): Promise<number> {
  return Number((await executor.query("select count(*) as n from products")).rows[0]?.n ?? 0);
}

async function grow(executor: Executor, from: number, to: number): Promise<void> {
  const have = await countProducts(executor);
  if (to <= have) return;
  await executor.query(GENERATE, [from, from + (to - have) - 1]);
  await executor.query("vacuum analyze products");
  await executor.query("vacuum analyze product_departments");
  await executor.query("vacuum analyze product_options");
}

async function explain(executor: Executor): Promise<Record<keyof typeof LISTING_STATEMENTS, string>> {
  const plans = {} as Record<keyof typeof LISTING_STATEMENTS, string>;
  const { rows: departments } = await executor.query(
    "select slug, id from departments where slug in ('computers', 'monitors', 'tablets')",
  );
  const idOf = (slug: string) => `'${String(departments.find((row) => row.slug === slug)?.id)}'::uuid`;
  for (const [name, template] of Object.entries(LISTING_STATEMENTS) as [keyof typeof LISTING_STATEMENTS, string][]) {
    const statement = template
      .replaceAll("$computers", idOf("computers"))
      .replaceAll("$monitors", idOf("monitors"))
      .replaceAll("$tablets", idOf("tablets"));
    // Without JIT, as the shop's own connections run (server/db/client.ts).
    if (executor instanceof pg.Client) await executor.query("set jit = off");
    const { rows } = await executor.query(`explain (analyze, costs off, timing off, summary off) ${statement}`);
    plans[name] = rows.map((row) => String(Object.values(row)[0])).join("\n");
  }
  return plans;
}

async function measureListing(
  server: { baseUrl: string },
  settings: { warmupS: number; durationS: number },
  products: number,
  log: (message: string) => void,
): Promise<ListingAtSize> {
  // A shopper with a basket: every request renders (a guest's page would come from the page cache).
  const { cookie } = await newShopper(server.baseUrl);
  const result = await runLoad({
    url: `${server.baseUrl}${LISTING_PATH}`,
    connections: 1,
    durationS: settings.durationS,
    warmupS: settings.warmupS,
    headers: { ...BROWSER_HEADERS, cookie },
  });
  log(
    `  ${integer(products)} products: ${integer(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, non-2xx ${result.non2xx}`,
  );
  return { products, rps: round(result.rps, 1), p50: result.p50, p99: result.p99, non2xx: result.non2xx };
}

/**
 * GET /departments/computers?price=25-50 (a filtered department listing with its sub-departments' counts) at one
 * connection, with 30 and with 100,000 products, by a shopper with a basket so that every request renders. On
 * PostgreSQL the products go straight into the server's database; on PGlite into the data directory of a server of
 * the scenario's own, stopped while it writes. Records the plans of the page's three statements at 100,000.
 */
export const departmentListingScenario: Scenario<ListingResult> = {
  name: "departmentListing",
  title: "Department listing (a filter and its facet counts, 30 and 100,000 products, one connection)",
  scope: "each-database",
  plannedSeconds: (settings) => LISTING_SIZES.length * (settings.warmupS + settings.durationS) + 90,

  async run({ server, settings, log }) {
    if (server.databaseUrl) {
      await waitUntilIdle(server.pid);
      const client = new pg.Client({ connectionString: server.databaseUrl, statement_timeout: 600_000 });
      await client.connect();
      try {
        const sizes: ListingAtSize[] = [];
        let plans = {} as ListingResult["plans"];
        for (const size of LISTING_SIZES) {
          await grow(client, (await countProducts(client)) + 1, size);
          sizes.push(await measureListing(server, settings, await countProducts(client), log));
          plans = await explain(client);
        }
        return {
          sizes,
          growth: round(sizes.at(-1)!.p99 / Math.max(sizes[0]!.p99, 0.01), 2),
          plans,
          database: "postgres",
        };
      } finally {
        await client.end();
      }
    }
    // PGlite: one process may open a data directory at a time, so the writes happen between two runs of a server.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "listing-bench-"));
    const pgliteAt = async <T>(work: (db: PGlite) => Promise<T>): Promise<T> => {
      const db = new PGlite(dataDir, { extensions: { pg_trgm } });
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    };
    const serve = () =>
      startShopServer(projectRoot, { kind: "pglite" }, { env: { DATA_DIR: dataDir }, startTimeoutMs: 180_000 });
    let own: RunningServer | undefined;
    try {
      // The first start migrates and seeds the shop's six; its stop releases the directory.
      await (await serve()).stop();
      const sizes: ListingAtSize[] = [];
      let plans = {} as ListingResult["plans"];
      for (const size of LISTING_SIZES) {
        const count = await pgliteAt(async (db) => {
          await grow(db, (await countProducts(db)) + 1, size);
          plans = await explain(db);
          return countProducts(db);
        });
        own = await serve();
        await waitUntilIdle(own.pid);
        sizes.push(await measureListing(own, settings, count, log));
        await own.stop();
        own = undefined;
      }
      return { sizes, growth: round(sizes.at(-1)!.p99 / Math.max(sizes[0]!.p99, 0.01), 2), plans, database: "pglite" };
    } finally {
      await own?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },

  render(measurements) {
    return measurements
      .map((measurement) => {
        if (!measurement.result)
          return `${measurement.databaseLabel}: not measured (${measurement.error ?? "no result"}).`;
        const result = measurement.result;
        const target = LISTING_P99_TARGET_MS[result.database];
        return [
          `${measurement.databaseLabel}: \`GET ${LISTING_PATH}\`, one connection`,
          "",
          table(
            ["Products", "req/s", "p50", "p99"],
            result.sizes.map((size) => [integer(size.products), integer(size.rps), ms(size.p50), ms(size.p99)]),
            ["r", "r", "r", "r"],
          ),
          "",
          `p99 at ${integer(result.sizes.at(-1)!.products)}: ${ms(result.sizes.at(-1)!.p99)} (target under ${target} ms); ${result.growth}× the p99 at ${result.sizes[0]!.products} (target within ${LISTING_GROWTH_TARGET}×).`,
          "",
          "Plans at the largest size (`explain analyze`):",
          "",
          ...Object.entries(result.plans).flatMap(([name, plan]) => [`${name}:`, "", "```", plan, "```", ""]),
        ].join("\n");
      })
      .join("\n\n");
  },

  missedTargets(result, databaseLabel) {
    const missed: string[] = [];
    const last = result.sizes.at(-1)!;
    if (last.p99 >= LISTING_P99_TARGET_MS[result.database])
      missed.push(`${databaseLabel}: department listing p99 ${ms(last.p99)} at ${integer(last.products)} products`);
    if (result.growth > LISTING_GROWTH_TARGET)
      missed.push(
        `${databaseLabel}: department listing p99 ${result.growth}× at ${integer(last.products)} of its p99 at ${result.sizes[0]!.products}`,
      );
    if (result.sizes.some((size) => size.non2xx > 0))
      missed.push(`${databaseLabel}: department listing answered non-2xx`);
    return missed;
  },
};
