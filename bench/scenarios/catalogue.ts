import pg from "pg";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, round } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { endpointsAtSizesTable, measure, type EndpointAtSize } from "./growth.ts";

/** Products in the catalogue, in turn (each step adds to the last); the first is the seeded six alone. */
export const CATALOGUE_SIZES = [6, 10_000, 100_000] as const;
/** The home page's req/s with the largest catalogue may be at most this much below its req/s with the six. */
export const HOME_RPS_TOLERANCE = 0.1;

/** What each size measures: a common word, a typo (the trigram path), a product page, and the home page. */
const REQUESTS = [
  { request: "GET /search?q=monitor", path: "/search?q=monitor" },
  { request: "GET /search?q=moniter (typo)", path: "/search?q=moniter" },
  { request: "GET /products/{slug}", path: "/products/samsung-49-inch-curved-gaming-monitor" },
  { request: "GET /", path: "/" },
] as const;

export interface CatalogueAtSize {
  products: number;
  /** Seconds to insert the products added at this step (and ANALYZE). */
  seedSeconds: number;
  endpoints: EndpointAtSize[];
}

export interface CatalogueResult {
  sizes: CatalogueAtSize[];
  /** req/s of GET / with the largest catalogue ÷ with the six. */
  homeRpsRatio: number;
  serverErrorLogLines: number;
}

/**
 * Search, a product page and the home page with 6, 10,000 and 100,000 products. The products beyond the seeded six
 * are generated here (eight kinds of thing, one in eight a monitor), inserted straight into the server's PostgreSQL
 * database, never featured (the home page keeps its six). PostgreSQL only, as growth: PGlite's data directory belongs
 * to the server process. It runs last: no other figure is measured on its rows.
 */
export const catalogueScenario: Scenario<CatalogueResult> = {
  name: "catalogue",
  title: "Catalogue (search and product pages, 6 to 100,000 products)",
  scope: "each-database",
  databases: ["postgres"],
  plannedSeconds: (settings) =>
    CATALOGUE_SIZES.length * REQUESTS.length * settings.rounds * (settings.warmupS + settings.durationS) + 60,

  async run({ server, settings, log }) {
    if (!server.databaseUrl) throw new Error("the catalogue scenario needs the server's PostgreSQL URL");
    const errorLinesBefore = server.errorLog().count;
    await waitUntilIdle(server.pid);
    const db = new pg.Client({
      connectionString: server.databaseUrl,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 600_000,
    });
    await db.connect();
    try {
      const sizes: CatalogueAtSize[] = [];
      let stored = Number((await db.query<{ n: string }>("select count(*) as n from products")).rows[0]?.n ?? 0);
      for (const size of CATALOGUE_SIZES) {
        const started = performance.now();
        if (size > stored) {
          log(`${server.label}: generating products ${stored + 1}–${size}`);
          await db.query(
            `insert into products (id, slug, title, description, price_cents, rating, image, image_width, image_height, featured_position)
             select 'bench' || g, 'bench-product-' || g,
                    (array['Compact','Wireless','Curved','Portable','Smart','Classic','Deluxe','Travel'])[1 + g % 8] || ' ' ||
                    (array['Monitor','Speaker','Mixer','Tablet','Notebook','Lamp','Kettle','Camera'])[1 + (g / 8) % 8] || ' ' || g,
                    'A generated product for the catalogue benchmark, number ' || g || '.' || E'\\n\\n' || 'It has a second paragraph, as real ones do.',
                    100 + g % 100000, 1 + g % 5, '/images/products/12321341.webp', 400, 400, null
             from generate_series($1::int, $2::int) as g`,
            [stored + 1, size],
          );
          await db.query("analyze products");
          stored = size;
        }
        const seedSeconds = round((performance.now() - started) / 1000, 1);
        log(`${server.label}: ${integer(stored)} products (seeded in ${seedSeconds} s)`);
        const endpoints: EndpointAtSize[] = [];
        for (const { request, path } of REQUESTS)
          endpoints.push(await measure(server, settings, log, request, path, ""));
        sizes.push({ products: stored, seedSeconds, endpoints });
      }
      const homeRps = (size: CatalogueAtSize | undefined) =>
        size?.endpoints.find((endpoint) => endpoint.request === "GET /")?.rps ?? 0;
      return {
        sizes,
        homeRpsRatio: round(homeRps(sizes.at(-1)) / Math.max(homeRps(sizes[0]), 1), 2),
        serverErrorLogLines: server.errorLog().count - errorLinesBefore,
      };
    } finally {
      await db.end();
    }
  },

  render(measurements) {
    const measured = measurements.filter((measurement) => measurement.result);
    if (measured.length === 0) {
      return `Not measured: ${measurements[0]?.error ?? "no PostgreSQL server in this run"}. This scenario runs on PostgreSQL only.`;
    }
    return measured
      .map((measurement) => {
        const result = measurement.result!;
        return [
          `${measurement.databaseLabel}:`,
          "",
          endpointsAtSizesTable(
            "Products",
            result.sizes.map((size) => ({ size: size.products, endpoints: size.endpoints })),
          ),
          "",
          `GET / with ${integer(result.sizes.at(-1)?.products ?? 0)} products: ${result.homeRpsRatio}× its req/s with 6 ` +
            `(target: within ${HOME_RPS_TOLERANCE * 100}%). Server error log lines: ${result.serverErrorLogLines}.`,
        ].join("\n");
      })
      .join("\n\n");
  },

  missedTargets(result, databaseLabel) {
    return result.homeRpsRatio < 1 - HOME_RPS_TOLERANCE
      ? [`${databaseLabel}: GET / with 100,000 products at ${result.homeRpsRatio}× its req/s with 6`]
      : [];
  },
};
