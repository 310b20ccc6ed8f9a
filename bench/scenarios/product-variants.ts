import { readFileSync } from "node:fs";
import path from "node:path";
import { deferCleanup } from "../lib/cleanup.ts";
import { runLoadWithCpu, type LoadOptions } from "../lib/load.ts";
import { createTemporaryDatabase } from "../lib/postgres.ts";
import { waitUntilIdle } from "../lib/process-stats.ts";
import { integer, kB, median, ms, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { startShopServer, type DatabaseChoice, type RunningServer } from "../lib/server.ts";
import { projectRoot, type Settings } from "../lib/settings.ts";
import { BENCH_PRODUCT, describeAnswer, JSON_HEADERS, newShopper, timedFetch } from "../lib/shop-client.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/** The product page's parameter naming the chosen variant (`VARIANT_PARAM` of shared/catalogue.ts, which Node cannot load as it is). */
const VARIANT_PARAM = "variant";

/** The product page with 100 variants may cost at most this many times the CPU of a product without options. */
export const PAGE_RATIO_TARGET = 2;
/**
 * Adding a variant to the basket (and taking it out) costs no more than the product without options "within the
 * noise": rounds of one request within one run on a quiet 2-core machine differ by up to about 10 %
 * (`BENCH_ONLY=productVariants BENCH_ROUNDS=5 npm run bench` lists every round).
 */
export const BASKET_RATIO_TARGET = 1.1;
/** Rounds of every measurement at the least (BENCH_ROUNDS gives more): the ratios are medians over rounds. */
const MIN_ROUNDS = 3;

const OPERATOR = { email: "bench-variants@example.com", password: "bench variants cobalt lantern" };
const SIZES = ["XXS", "XS", "S", "M", "L", "XL", "XXL", "3XL", "4XL", "5XL"] as const;
const COLOURS = ["Black", "White", "Navy", "Grey", "Red", "Green", "Blue", "Olive", "Sand", "Burgundy"] as const;
/** The variants the basket loads add and remove: one whose stock is tracked, one whose is not. */
const TRACKED_CHOICE = { size: "M", colour: "Navy" } as const;
const UNTRACKED_CHOICE = { size: "M", colour: "Olive" } as const;
const PLAIN_PATH = "/products/the-lean-startup";

/**
 * The product's variants as the console's variants table is filled in: stock tracked on the first five colours, a few
 * of them at 0 (so the picker says "(out of stock)" beside some values; not the first variant, which the page shows
 * unless another is chosen), Grey selling on when out of stock, the larger sizes dearer, Red at a compare-at price,
 * every variant with its SKU.
 */
function variantRows(): {
  size: string;
  colour: string;
  sku: string;
  price: string;
  compareAt: string;
  stock: string;
  tracked: boolean;
  continueSelling: boolean;
}[] {
  return SIZES.flatMap((size, sizeIndex) =>
    COLOURS.map((colour, colourIndex) => {
      const tracked = colourIndex < 5;
      const stock = (sizeIndex + colourIndex) % 9 === 4 ? 0 : 10 + ((sizeIndex * 7 + colourIndex * 3) % 40);
      return {
        size,
        colour,
        sku: `BENCH-TEE-${size}-${colour.toUpperCase()}`,
        price: sizeIndex >= 7 ? "21.99" : "",
        compareAt: colour === "Red" ? "24.99" : "",
        stock: tracked ? String(stock) : "",
        tracked,
        continueSelling: colour === "Grey",
      };
    }),
  );
}

export interface LoadFigures {
  name: string;
  cpuMsPerRequest: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, non-2xx answers and removes that removed nothing: any makes the row suspect. */
  failed: number;
  /** Answers by status code, and removes answered 2xx without `"removed":true`, for the failures' reason. */
  statusCodes: Record<string, number>;
  removedNothing: number;
}

export interface Comparison {
  name: string;
  /** The request of the product without options, and of the product with 100 variants. */
  plain: string;
  variants: string;
  target: number;
  /** Variants ÷ plain, measured back to back, per round. */
  ratios: number[];
  medianRatio: number;
  medianCpuMs: { plain: number; variants: number };
}

export interface ProductVariantsResult {
  /** The scenario's own server, e.g. "PostgreSQL (bench_…)": not the run's, whose label heads the row. */
  server: string;
  product: {
    slug: string;
    variants: number;
    tracked: number;
    createdInS: number;
    pageBytes: { plain: number; variants: number };
  };
  rounds: { order: string[]; rows: LoadFigures[] }[];
  comparisons: Comparison[];
  serverStartupS: number;
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

type Load = Omit<LoadOptions, "durationS" | "warmupS" | "connections">;

async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: baseUrl },
    body: new URLSearchParams({ intent: "sign-in", email: OPERATOR.email, password: OPERATOR.password }),
  });
  const cookie = /sf_session=[^;]+/.exec(response.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error(`signing in the bench operator answered ${response.status} without a session cookie`);
  return cookie;
}

/**
 * The product, through the console's product form as an operator's browser posts it without JavaScript (two options,
 * the variants table filled in, a picture): returns its slug, from the saved form's "View on the shop" link.
 */
async function createProduct(baseUrl: string, cookie: string): Promise<string> {
  const form = new FormData();
  form.set("title", "Bench Organic Cotton Tee in Ten Sizes and Ten Colours");
  form.set(
    "description",
    "A plain crew-neck tee in heavy organic cotton, cut straight, with a taped neck seam that keeps its shape wash after wash.\n\n" +
      "Ten sizes from XXS to 5XL and ten colours, dyed after knitting so the colour goes right through. The larger sizes cost a little more.",
  );
  form.set("price", "19.99");
  form.set("featuredPosition", "");
  form.set("status", "active");
  form.set("optionName1", "Size");
  form.set("optionValues1", SIZES.join(", "));
  form.set("optionName2", "Colour");
  form.set("optionValues2", COLOURS.join(", "));
  for (const row of variantRows()) {
    const field = (input: string) => `v:${row.size}|${row.colour}:${input}`;
    form.set(field("sku"), row.sku);
    form.set(field("price"), row.price);
    form.set(field("compareAt"), row.compareAt);
    form.set(field("stock"), row.stock);
    form.set(field("stockWas"), "");
    if (row.tracked) form.set(field("track"), "on");
    if (row.continueSelling) form.set(field("continue"), "on");
  }
  const picture = readFileSync(path.join(projectRoot, "images/products/3254354345.webp"));
  form.set("picture", new File([picture], "tee.webp", { type: "image/webp" }));
  const saved = await fetch(`${baseUrl}/admin/products/new`, {
    method: "POST",
    redirect: "manual",
    body: form,
    headers: { cookie, accept: "text/html", origin: baseUrl },
  });
  const location = saved.headers.get("location");
  if (saved.status !== 302 || !location) {
    const page = await saved.text();
    const errors = [...page.matchAll(/class="console-field__error"[^>]*>([^<]+)</g)]
      .map((match) => match[1])
      .slice(0, 5);
    throw new Error(`the product form answered ${saved.status}${errors.length > 0 ? `: ${errors.join("; ")}` : ""}`);
  }
  const editPage = await timedFetch(new URL(location, baseUrl).href, { headers: { cookie, accept: "text/html" } });
  const slug = /href="\/products\/([^"?]+)"[^>]*>View on the shop/.exec(editPage.body)?.[1];
  if (editPage.status !== 200 || !slug)
    throw new Error(describeAnswer(`GET ${location} (the saved product's slug)`, editPage));
  return slug;
}

/**
 * What the page's Add to Basket form sends for a variant, as the JSON basket API takes it: the form's hidden
 * productId, and the variant the option values sent (as without JavaScript) chose, from the address they lead to. Also checks that the page offers every size and colour.
 */
async function basketFormOf(
  baseUrl: string,
  slug: string,
  choice: { size: string; colour: string },
): Promise<{ productId: string; variantId: string }> {
  // The values sent answer with a redirect to the chosen variant's own address (?variant=…), as a browser follows.
  const chosen = await timedFetch(
    `${baseUrl}/products/${slug}?option1=${encodeURIComponent(choice.size)}&option2=${encodeURIComponent(choice.colour)}`,
    { headers: { accept: "text/html" } },
  );
  const location = chosen.headers.get("location");
  if (chosen.status !== 302 || !location)
    throw new Error(describeAnswer(`GET /products/${slug} with a size and a colour chosen`, chosen));
  const page = await timedFetch(new URL(location, baseUrl).href, { headers: { accept: "text/html" } });
  if (page.status !== 200) throw new Error(describeAnswer(`GET ${location}`, page));
  const offered = (option: string) => page.body.match(new RegExp(`name="${option}"`, "g"))?.length ?? 0;
  if (offered("option1") !== SIZES.length || offered("option2") !== COLOURS.length) {
    throw new Error(
      `GET /products/${slug} offers ${offered("option1")} sizes and ${offered("option2")} colours, not ${SIZES.length} and ${COLOURS.length}`,
    );
  }
  const productId = /action="\/basket\/add"[^>]*>\s*<input type="hidden" name="productId" value="([^"]+)"/.exec(
    page.body,
  )?.[1];
  const variantId = new URL(location, baseUrl).searchParams.get(VARIANT_PARAM);
  if (!productId || !variantId)
    throw new Error(
      `GET /products/${slug}: no Add to Basket form, or no variant chosen, for ${choice.size} / ${choice.colour}`,
    );
  return { productId, variantId };
}

/** The uncompressed HTML of a page as a shopper with a session gets it. */
async function pageBytes(baseUrl: string, pagePath: string, cookie: string): Promise<number> {
  const page = await timedFetch(`${baseUrl}${pagePath}`, { headers: { accept: "text/html", cookie } });
  if (page.status !== 200) throw new Error(describeAnswer(`GET ${pagePath}`, page));
  return Buffer.byteLength(page.body);
}

/**
 * Shoppers for one basket load, each with a basket: 50, as the basket scenario has, so that two connections seldom
 * change the same basket at once (a remove would then find its line gone: "removed nothing"). Each basket is emptied
 * of the line its session started with, so that every load adds to an empty basket and takes the line out again:
 * with that line left in, the variant's loads priced two lines each time and the product's load one (its first remove
 * takes the line out), which read 1.28-1.49 times the product's on 2026-12-01 for the same work.
 */
async function basketShoppers(baseUrl: string): Promise<string[]> {
  const cookies: string[] = [];
  for (let index = 0; index < 50; index += 1) {
    const { cookie } = await newShopper(baseUrl);
    const emptied = await timedFetch(`${baseUrl}/basket/remove`, {
      method: "POST",
      headers: { ...JSON_HEADERS, cookie },
      body: JSON.stringify({ productId: BENCH_PRODUCT.id }),
    });
    if (emptied.status !== 200 || !emptied.body.includes('"removed":true'))
      throw new Error(describeAnswer("POST /basket/remove (emptying a new shopper's basket)", emptied));
    cookies.push(cookie);
  }
  return cookies;
}

/** Basket changes as the enhanced product page makes them: each connection adds one for a shopper, then takes it out. */
function basketLoad(baseUrl: string, cookies: string[], body: { productId: string; variantId?: string }): Load {
  let next = 0;
  const json = JSON.stringify(body);
  return {
    url: `${baseUrl}/basket/add`,
    headers: JSON_HEADERS,
    requests: [
      {
        name: "add",
        method: "POST",
        path: "/basket/add",
        body: json,
        headersFor: (context) => {
          context.cookie = cookies[next++ % cookies.length];
          return { cookie: context.cookie as string };
        },
      },
      {
        name: "remove",
        method: "POST",
        path: "/basket/remove",
        body: json,
        headersFor: (context) => ({ cookie: context.cookie as string }),
        expect: (answer) => answer.includes('"removed":true'),
      },
    ],
  };
}

/** CPU of the server process per request over a measured load, after a warm-up that is not counted. */
async function measureCpu(
  server: RunningServer,
  settings: Settings,
  name: string,
  load: Load,
  log: (message: string) => void,
): Promise<LoadFigures> {
  const { result, cpuMsPerRequest } = await runLoadWithCpu(server.pid, {
    ...load,
    connections: settings.connections,
    durationS: settings.durationS,
    warmupS: settings.warmupS,
  });
  const unexpected = Object.values(result.perRequest ?? {}).reduce((sum, figures) => sum + figures.unexpected, 0);
  const figures: LoadFigures = {
    name,
    cpuMsPerRequest: round(cpuMsPerRequest, 3),
    requests: result.requests,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    failed: result.errors + result.non2xx + unexpected,
    statusCodes: result.statusCodes,
    removedNothing: unexpected,
  };
  log(
    `  ${name}: ${figures.cpuMsPerRequest} ms CPU/request, ${integer(figures.rps)} req/s, p99 ${ms(figures.p99)}, failed ${figures.failed}`,
  );
  return figures;
}

/**
 * The product page of a product with 2 options and 100 variants (10 sizes × 10 colours, stock tracked on half) against
 * that of a product without options (/products/the-lean-startup), and adding a variant to the basket and taking it
 * out against the same for that product: server CPU per request, measured back to back in rounds (the order turned
 * round every other round), each ratio the median of its rounds'. A server of its own, started with an operator
 * (OPERATOR_EMAIL), on a fresh database (PGlite: its own DATA_DIR; PostgreSQL: a temporary database of its own, so the
 * run's shared database keeps its six products); the product goes in through the console's product form.
 */
export const productVariantsScenario: Scenario<ProductVariantsResult> = {
  name: "productVariants",
  title: "Product page with 100 variants against one without options (server CPU per request)",
  scope: "each-database",
  plannedSeconds: (settings) =>
    Math.max(MIN_ROUNDS, settings.rounds) * 7 * (settings.warmupS + settings.durationS) + 60,

  async run({ server: runServer, settings, log }) {
    let choice: DatabaseChoice = { kind: "pglite" };
    let dropDatabase = async () => {};
    if (runServer.database === "postgres") {
      const database = await createTemporaryDatabase(settings.postgresAdminUrl);
      dropDatabase = deferCleanup(`drop database ${database.name}`, () => database.drop());
      choice = { kind: "postgres", url: database.url, name: database.name };
    }
    let server: RunningServer | undefined;
    try {
      server = await startShopServer(projectRoot, choice, {
        env: { OPERATOR_EMAIL: OPERATOR.email, OPERATOR_PASSWORD: OPERATOR.password },
        // A fresh database is migrated and seeded first: on a busy machine that takes longer than a restart.
        startTimeoutMs: Math.max(settings.startTimeoutS, 180) * 1000,
      });
      log(
        `${server.label}: a server of its own at ${server.baseUrl} (pid ${server.pid}), ready in ${round(server.startupS, 1)} s`,
      );
      await waitUntilIdle(server.pid);
      const operator = await signIn(server.baseUrl);
      const started = performance.now();
      const slug = await createProduct(server.baseUrl, operator);
      const createdInS = round((performance.now() - started) / 1000, 2);
      const variantsPath = `/products/${slug}`;
      const tracked = await basketFormOf(server.baseUrl, slug, TRACKED_CHOICE);
      const untracked = await basketFormOf(server.baseUrl, slug, UNTRACKED_CHOICE);
      log(
        `  created ${variantsPath} with ${SIZES.length * COLOURS.length} variants through the product form in ${createdInS} s`,
      );

      // A shopper with a basket: their pages always render (a guest's are kept as bytes per catalogue version).
      const { cookie: shopper } = await newShopper(server.baseUrl);
      const bytes = {
        plain: await pageBytes(server.baseUrl, PLAIN_PATH, shopper),
        variants: await pageBytes(server.baseUrl, variantsPath, shopper),
      };
      const page = (cookie?: string): Load => ({
        url: "",
        headers: cookie ? { ...BROWSER_HEADERS, cookie } : BROWSER_HEADERS,
      });
      const base = server.baseUrl;
      const loads = {
        shopperPlain: { name: `shopper's GET ${PLAIN_PATH}`, load: { ...page(shopper), url: `${base}${PLAIN_PATH}` } },
        shopperVariants: {
          name: `shopper's GET /products/(100 variants)`,
          load: { ...page(shopper), url: `${base}${variantsPath}` },
        },
        guestPlain: { name: `guest's GET ${PLAIN_PATH}`, load: { ...page(), url: `${base}${PLAIN_PATH}` } },
        guestVariants: {
          name: `guest's GET /products/(100 variants)`,
          load: { ...page(), url: `${base}${variantsPath}` },
        },
        basketPlain: {
          name: "basket add + remove, the-lean-startup",
          load: basketLoad(base, await basketShoppers(base), { productId: BENCH_PRODUCT.id }),
        },
        basketTracked: {
          name: `basket add + remove, ${TRACKED_CHOICE.size} / ${TRACKED_CHOICE.colour} (stock tracked)`,
          load: basketLoad(base, await basketShoppers(base), tracked),
        },
        basketUntracked: {
          name: `basket add + remove, ${UNTRACKED_CHOICE.size} / ${UNTRACKED_CHOICE.colour} (stock not tracked)`,
          load: basketLoad(base, await basketShoppers(base), untracked),
        },
      };
      type Key = keyof typeof loads;
      // Each group back to back, so that whatever else the machine does weighs on both sides of a ratio alike.
      const groups: Key[][] = [
        ["shopperPlain", "shopperVariants"],
        ["guestPlain", "guestVariants"],
        ["basketPlain", "basketTracked", "basketUntracked"],
      ];
      const roundCount = Math.max(MIN_ROUNDS, settings.rounds);
      await waitUntilIdle(server.pid);
      const rounds: ProductVariantsResult["rounds"] = [];
      for (let index = 0; index < roundCount; index++) {
        log(`${server.label}: product variants, round ${index + 1} of ${roundCount}`);
        const order = groups.flatMap((group) => (index % 2 === 0 ? group : [...group].reverse()));
        const rows: LoadFigures[] = [];
        for (const key of order) rows.push(await measureCpu(server, settings, loads[key].name, loads[key].load, log));
        rounds.push({ order: order.map((key) => loads[key].name), rows });
      }

      const compare = (name: string, plain: Key, variants: Key, target: number): Comparison => {
        const cpuOf = (key: Key) =>
          rounds.map((each) => each.rows.find((row) => row.name === loads[key].name)!.cpuMsPerRequest);
        const ratios = rounds.map((_, index) => round(cpuOf(variants)[index]! / cpuOf(plain)[index]!, 3));
        return {
          name,
          plain: loads[plain].name,
          variants: loads[variants].name,
          target,
          ratios,
          medianRatio: round(median(ratios), 3),
          medianCpuMs: { plain: round(median(cpuOf(plain)), 3), variants: round(median(cpuOf(variants)), 3) },
        };
      };
      const errors = server.errorLog();
      return {
        server: server.label,
        product: {
          slug,
          variants: SIZES.length * COLOURS.length,
          tracked: variantRows().filter((row) => row.tracked).length,
          createdInS,
          pageBytes: bytes,
        },
        rounds,
        comparisons: [
          compare("product page, a shopper's (rendered)", "shopperPlain", "shopperVariants", PAGE_RATIO_TARGET),
          compare("product page, a guest's (kept as bytes)", "guestPlain", "guestVariants", PAGE_RATIO_TARGET),
          compare(
            "basket add + remove, a variant with stock tracked",
            "basketPlain",
            "basketTracked",
            BASKET_RATIO_TARGET,
          ),
          compare(
            "basket add + remove, a variant without stock tracking",
            "basketPlain",
            "basketUntracked",
            BASKET_RATIO_TARGET,
          ),
        ],
        serverStartupS: round(server.startupS, 1),
        serverErrorLogLines: errors.count,
        serverErrorLogSample: errors.first,
      };
    } finally {
      await server?.stop();
      await dropDatabase();
    }
  },

  render(measurements) {
    const comparisons: (string | number)[][] = [];
    const requests: (string | number)[][] = [];
    const notes: string[] = [];
    for (const { databaseLabel, result, error } of measurements) {
      if (!result) {
        notes.push(`${databaseLabel}: not measured (${error ?? "no result"}).`);
        continue;
      }
      for (const comparison of result.comparisons) {
        comparisons.push([
          databaseLabel,
          comparison.name,
          comparison.medianCpuMs.plain.toFixed(3),
          comparison.medianCpuMs.variants.toFixed(3),
          `${comparison.medianRatio.toFixed(2)}×`,
          comparison.ratios.map((ratio) => ratio.toFixed(2)).join(", "),
          `${comparison.medianRatio <= comparison.target ? "PASS" : "FAIL"} (≤ ${comparison.target}×)`,
        ]);
      }
      const names = result.rounds[0]?.rows.map((row) => row.name) ?? [];
      for (const name of names) {
        const rows = result.rounds.map((each) => each.rows.find((row) => row.name === name)!);
        requests.push([
          databaseLabel,
          name,
          rows.map((row) => row.cpuMsPerRequest.toFixed(3)).join(", "),
          integer(median(rows.map((row) => row.rps))),
          ms(median(rows.map((row) => row.p99))),
          integer(rows.reduce((sum, row) => sum + row.failed, 0)),
        ]);
      }
      notes.push(
        `${databaseLabel}: measured on ${result.server}, /products/${result.product.slug}, ${result.product.variants} variants (${result.product.tracked} with stock tracked), ` +
          `created through the product form in ${result.product.createdInS} s; a shopper's page ${kB(result.product.pageBytes.variants)} of HTML ` +
          `against ${kB(result.product.pageBytes.plain)} for ${PLAIN_PATH}. Server error log lines: ${result.serverErrorLogLines}.`,
      );
    }
    const how =
      "CPU time (user + system) of a server of the scenario's own, from /proc/<pid>/stat, over each measured load ÷ the " +
      "requests answered (warm-up not counted), the product without options and the product with 100 variants measured " +
      "back to back, the order turned round every other round. A shopper (session cookie) always gets a fresh render; a " +
      "guest gets the page kept as bytes. Ratio: the median of the rounds' own ratios.";
    return [
      how,
      "",
      table(
        ["Database", "Compared", "Without options, CPU ms", "100 variants, CPU ms", "Ratio", "Rounds", "Target"],
        comparisons,
        ["l", "l", "r", "r", "r", "l", "l"],
      ),
      "",
      table(["Database", "Request", "CPU ms/request by round", "req/s", "p99", "Failed"], requests, [
        "l",
        "l",
        "l",
        "r",
        "r",
        "r",
      ]),
      "",
      ...notes.map((note) => `- ${note}`),
    ].join("\n");
  },

  missedTargets(result, databaseLabel) {
    const missed = result.comparisons
      .filter((comparison) => comparison.medianRatio > comparison.target)
      .map(
        (comparison) =>
          `${databaseLabel}, ${comparison.name}: ${comparison.medianRatio.toFixed(2)}× the product without options > ${comparison.target}×`,
      );
    const failed = result.rounds.flatMap((each) => each.rows).filter((row) => row.failed > 0);
    if (failed.length > 0)
      missed.push(`${databaseLabel}, product variants: ${failed.length} measurements with failed requests`);
    return missed;
  },
};
