import { setTimeout as sleep } from "node:timers/promises";
import {
  autocannonSide,
  cpuInSlices,
  runLoadWithCpu,
  type LoadOptions,
  type SlicedCpu,
  type SlicedSide,
} from "../lib/load.ts";
import { cpuSecondsOf } from "../lib/process-stats.ts";
import { integer, median, ms, percentile, round, table } from "../lib/report.ts";
import type { Measurement, Scenario } from "../lib/scenario.ts";
import { startFloorServer, type RunningServer } from "../lib/server.ts";
import { projectRoot } from "../lib/settings.ts";
import {
  addToBasket,
  BENCH_PRODUCT,
  confirmPayment,
  createPayment,
  describeAnswer,
  findPaymentConfig,
  JSON_HEADERS,
  newShopper,
  type PaymentConfig,
  recordOrder,
  sessionCookieOf,
  timedFetch,
} from "../lib/shop-client.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/**
 * Server CPU per request: the server process's CPU time (user + system, from /proc/<pid>/stat) over a measured load,
 * divided by the requests answered. Steadier than req/s on a shared machine, since it does not depend on how much of
 * the CPU the server was given. The floor is React Router alone (bench/floor/server.ts) rendering the same home page.
 */
export interface CpuRow {
  name: string;
  /** The target in ms of CPU per request (or per checkout), when the project has set one. */
  targetMs?: number;
  cpuMsPerRequest: number;
  requests: number;
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface CpuResult {
  rows: CpuRow[];
  /**
   * The signed-in page's CPU over the floor's: the median of the differences of FLOOR_PAIRS rounds, each measuring
   * the floor and then the page, so that the machine's drift over the run weighs on both sides of each difference.
   */
  signedInOverFloorMs?: number;
  /** The same for each page measured against its floor, and that difference as a share of the floor (median). */
  pagesOverFloor?: PageOverFloor[];
  /**
   * A whole checkout's CPU ÷ the floor of GET /: the median of FLOOR_PAIRS rounds' ratios, each round measuring the
   * floor and then the checkouts (results of runs before 2026-11-30 have none: their checkout row ÷ the floor's row).
   */
  checkoutOverFloor?: number;
}

/** A signed-in shopper's page against the floor rendering the same page, in turns. */
export interface PageOverFloor {
  page: string;
  /** The median round's floor, ms of CPU per request. */
  floorMs: number;
  /** The shop's own CPU: the median of the rounds' (page − floor), ms. */
  ownMs: number;
  /** The median of the rounds' (page − floor) ÷ floor. */
  ownOverFloor: number;
}

/** The pages measured against the floor, as the signed-in shopper asks for them. */
export const FLOOR_PAGES = ["/", "/products/the-lean-startup", "/search?q=monitor"] as const;

/** Rounds of the floor and the signed-in page measured in slices; the rows give each one's median round. */
const FLOOR_PAIRS = 3;

/** How long each side's turn lasts when a page and its floor are measured in slices: some 500 requests. */
const PAGE_SLICE_MS = 1_000;

const CHECKOUT_CONCURRENCY = 4;

/**
 * The least warm-up before checkouts are measured (unless BENCH_WARMUP_S is 0). A page row's 3 s are thousands of
 * requests; 3 s of checkouts are about a hundred, and a checkout runs code nothing else runs (the database's writes,
 * in PGlite's WebAssembly too), which V8 compiles optimised only once it has run a while. From a fresh server, in
 * rounds of 4 s of checkouts (2026-11-29, two servers each), the first round cost 1.5–1.7 times the median of the
 * third to sixth and the second 1.1 times, on PGlite and on PostgreSQL alike.
 */
const CHECKOUT_WARMUP_S = 12;

/** Seconds of checkouts before measuring them, for a run that warms up for `warmupS` before each measurement. */
export const checkoutWarmupS = (warmupS: number) => (warmupS > 0 ? Math.max(warmupS, CHECKOUT_WARMUP_S) : 0);

/** The built-in processor delivers its webhooks every second: this covers the last ones of a checkout run. */
export const WEBHOOK_SETTLE_MS = 2_500;

export const TARGETS_MS: Record<string, number> = {
  "guest GET /": 1.0,
  "GET /products/the-lean-startup": 1.5,
  "GET /search?q=monitor": 1.5,
  "POST /basket/add + /basket/remove": 1.0,
  "whole checkout (add, create, confirm, record, webhook)": 15,
};

/**
 * The shop's own cost of a signed-in shopper's page: its CPU over the floor's (React Router rendering the same page
 * with no shop code), on PostgreSQL, where the database's own work is in other processes, as a share of the floor, for
 * each page measured against its own floor (GET /, a product, a search). What is left is the shop's: the session, the
 * basket, the page's statements, middleware, compression.
 */
export const OWN_OVER_FLOOR_TARGET = 0.39;
/** A whole checkout's CPU ÷ the floor of GET / (one render of the home page), on PostgreSQL. */
export const CHECKOUT_OVER_FLOOR_TARGET = 6;
const SIGNED_IN = "signed-in GET /";
const CHECKOUT = "whole checkout (add, create, confirm, record, webhook)";

/** PGlite runs the database inside the server process: its basket changes and checkouts may cost this much more CPU. */
export const PGLITE_OVER_POSTGRES_TARGET = 1.3;
const PGLITE_COMPARED = ["POST /basket/add + /basket/remove", CHECKOUT];
/**
 * The scenario that measures PGlite against PostgreSQL in turns (pglite-in-turns.ts): when it ran, it judges that
 * target, and this scenario's ratio of two parts of the run minutes apart is shown, not judged.
 */
export const PGLITE_IN_TURNS = "pgliteInTurns";
const judgedInTurns = (allMeasurements?: ReadonlyMap<string, readonly Measurement[]>) =>
  allMeasurements?.get(PGLITE_IN_TURNS)?.some((measurement) => measurement.result !== undefined) ?? false;

/** The name of the floor's row for a request ("GET /search?q=monitor"). */
const floorRowName = (request: string) => `floor: React Router alone, ${request}`;

/** The floor row of the page a row asks for ("… GET /search?q=monitor"), if the run measured it. */
function floorOf(rows: readonly CpuRow[], row: CpuRow): CpuRow | undefined {
  const request = row.name.slice(row.name.indexOf("GET "));
  return row.name.includes("GET ") && !row.name.startsWith("floor")
    ? rows.find((candidate) => candidate.name === floorRowName(request))
    : undefined;
}

/**
 * The shop's own CPU for each signed-in page over its floor: measured in turns with the floor when it was, else
 * (results of runs before pages had their own floors) the home page's rows' difference.
 */
function pagesOverFloor(result: CpuResult): PageOverFloor[] {
  if (result.pagesOverFloor) return result.pagesOverFloor;
  const row = result.rows.find((candidate) => candidate.name === SIGNED_IN);
  const floor = row && floorOf(result.rows, row);
  if (!row || !floor) return [];
  const ownMs = result.signedInOverFloorMs ?? round(row.cpuMsPerRequest - floor.cpuMsPerRequest, 3);
  return [
    { page: "GET /", floorMs: floor.cpuMsPerRequest, ownMs, ownOverFloor: round(ownMs / floor.cpuMsPerRequest, 3) },
  ];
}

/** The floor of GET / (one render of the home page): the unit a whole checkout is judged in. */
export function homeFloorMs(result: CpuResult): number | undefined {
  return result.rows.find((row) => row.name === floorRowName("GET /"))?.cpuMsPerRequest;
}

/** A whole checkout's CPU ÷ the floor of GET /: measured in turns when it was. */
function checkoutOverFloor(result: CpuResult): number | undefined {
  if (result.checkoutOverFloor !== undefined) return result.checkoutOverFloor;
  const checkout = result.rows.find((row) => row.name === CHECKOUT);
  const floorMs = homeFloorMs(result);
  return checkout && floorMs ? round(checkout.cpuMsPerRequest / floorMs, 2) : undefined;
}

/**
 * The round whose CPU per request is the median (the middle one of an odd number), standing for them all, with every
 * round's failed answers: a failure in any round is a missed target.
 */
function medianRound(rounds: readonly CpuRow[]): CpuRow {
  const sorted = [...rounds].sort((a, b) => a.cpuMsPerRequest - b.cpuMsPerRequest);
  const sum = (count: (row: CpuRow) => number) => rounds.reduce((total, row) => total + count(row), 0);
  return {
    ...sorted[Math.floor((sorted.length - 1) / 2)]!,
    non2xx: sum((row) => row.non2xx),
    errors: sum((row) => row.errors),
  };
}

export const cpuPerRequestScenario: Scenario<CpuResult> = {
  name: "cpuPerRequest",
  title: "Server CPU per request",
  scope: "each-database",
  plannedSeconds: (settings) =>
    4 * (settings.warmupS + settings.durationS) +
    FLOOR_PAGES.length * (2 * settings.warmupS + FLOOR_PAIRS * (2 + 2 * settings.durationS)) +
    FLOOR_PAIRS * (5 + 2 * settings.durationS) +
    checkoutWarmupS(settings.warmupS) +
    10,

  async run({ server, settings, log }) {
    const rows: CpuRow[] = [];
    const measureRow = async (
      name: string,
      pid: number,
      options: Omit<LoadOptions, "durationS" | "warmupS" | "connections">,
    ): Promise<CpuRow> => {
      log(`${server.label}: CPU per request, ${name}`);
      const { result, cpuMsPerRequest } = await runLoadWithCpu(pid, {
        ...options,
        connections: settings.connections,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
      });
      const row: CpuRow = {
        name,
        targetMs: TARGETS_MS[name],
        cpuMsPerRequest: round(cpuMsPerRequest, 3),
        requests: result.requests,
        rps: result.rps,
        p99: result.p99,
        non2xx: result.non2xx,
        errors: result.errors,
      };
      log(
        `  ${row.cpuMsPerRequest} ms CPU/request, ${integer(row.rps)} req/s, p99 ${ms(row.p99)}, non-2xx ${row.non2xx}`,
      );
      return row;
    };
    const measure = async (...args: Parameters<typeof measureRow>) => {
      rows.push(await measureRow(...args));
    };

    // The floor and the signed-in page in turns, page by page: their difference is the figure judged, and a machine
    // that slows down or speeds up during the run would otherwise move one side of it and not the other.
    const signedIn = await registerShopper(server.baseUrl);
    const pagesOverFloor: PageOverFloor[] = [];
    const signedInRows: CpuRow[] = [];
    let signedInOverFloorMs: number | undefined;
    let checkoutOverFloorRatio: number | undefined;
    let checkoutRow: CpuRow | undefined;
    const floor = await startFloorServer(projectRoot);
    const floorLoad = (path: string) => ({ url: `${floor.baseUrl}${path}`, headers: BROWSER_HEADERS });
    /** A row of what one side measured in slices, logged as measureRow logs it. */
    const slicedRow = (name: string, measured: SlicedCpu): CpuRow => {
      const row: CpuRow = {
        name,
        targetMs: TARGETS_MS[name],
        cpuMsPerRequest: round(measured.cpuMsPerRequest, 3),
        requests: measured.done,
        rps: round(measured.perSecond, 1),
        p99: measured.p99,
        non2xx: measured.failed,
        errors: 0,
      };
      log(`  ${name}: ${row.cpuMsPerRequest} ms CPU/request, ${integer(row.rps)} req/s, failed ${row.non2xx}`);
      return row;
    };
    try {
      for (const path of FLOOR_PAGES) {
        log(`${server.label}: CPU per request, the floor and signed-in GET ${path} in slices`);
        const sides = [
          autocannonSide(floor.pid, { ...floorLoad(path), connections: settings.connections }),
          autocannonSide(server.pid, {
            ...signedInLoad(server.baseUrl, signedIn, path),
            connections: settings.connections,
          }),
        ];
        if (settings.warmupS > 0) for (const side of sides) await side.runSlice(settings.warmupS * 1000);
        const floorRounds: CpuRow[] = [];
        const signedInRounds: CpuRow[] = [];
        for (let pair = 0; pair < FLOOR_PAIRS; pair += 1) {
          const [floorRound, signedInRound] = await cpuInSlices(sides, {
            durationS: settings.durationS,
            sliceMs: PAGE_SLICE_MS,
          });
          floorRounds.push(slicedRow(floorRowName(`GET ${path}`), floorRound!));
          signedInRounds.push(slicedRow(`signed-in GET ${path}`, signedInRound!));
        }
        rows.push(medianRound(floorRounds));
        signedInRows.push(medianRound(signedInRounds));
        const own = signedInRounds.map((row, index) => row.cpuMsPerRequest - floorRounds[index]!.cpuMsPerRequest);
        const ownMs = round(median(own), 3);
        if (path === "/") signedInOverFloorMs = ownMs;
        pagesOverFloor.push({
          page: `GET ${path}`,
          floorMs: medianRound(floorRounds).cpuMsPerRequest,
          ownMs,
          ownOverFloor: round(median(own.map((ms, index) => ms / floorRounds[index]!.cpuMsPerRequest)), 3),
        });
      }
      // Checkouts in slices with the floor of GET / too, after their warm-up: the ratio judged is the rounds' median.
      const warmupS = checkoutWarmupS(settings.warmupS);
      if (warmupS > 0) await checkoutCpu(server.baseUrl, [server.pid], warmupS);
      log(`${server.label}: CPU per request, the floor of GET / and ${CHECKOUT} in slices`);
      const sides = [
        autocannonSide(floor.pid, { ...floorLoad("/"), connections: settings.connections }),
        await checkoutSide(server),
      ];
      const checkoutRounds: CpuRow[] = [];
      const ratios: number[] = [];
      for (let pair = 0; pair < FLOOR_PAIRS; pair += 1) {
        const [floorRound, checkoutRound] = await cpuInSlices(sides, {
          durationS: settings.durationS,
          sliceMs: CHECKOUT_SLICE_MS,
          settleMs: WEBHOOK_SETTLE_MS,
        });
        slicedRow(floorRowName("GET /"), floorRound!);
        checkoutRounds.push(slicedRow(CHECKOUT, checkoutRound!));
        ratios.push(checkoutRound!.cpuMsPerRequest / floorRound!.cpuMsPerRequest);
        log(`  checkout ÷ floor: ${ratios.at(-1)!.toFixed(2)}`);
      }
      checkoutRow = medianRound(checkoutRounds);
      checkoutOverFloorRatio = round(median(ratios), 2);
    } finally {
      await floor.stop();
    }
    await measure("guest GET /", server.pid, { url: `${server.baseUrl}/`, headers: BROWSER_HEADERS });
    await measure("GET /products/the-lean-startup", server.pid, {
      url: `${server.baseUrl}/products/the-lean-startup`,
      headers: BROWSER_HEADERS,
    });
    await measure("GET /search?q=monitor", server.pid, {
      url: `${server.baseUrl}/search?q=monitor`,
      headers: BROWSER_HEADERS,
    });

    rows.push(...signedInRows);
    await measure(
      "POST /basket/add + /basket/remove",
      server.pid,
      basketLoad(server.baseUrl, await basketShoppers(server.baseUrl)),
    );
    rows.push(checkoutRow);
    return { rows, signedInOverFloorMs, pagesOverFloor, checkoutOverFloor: checkoutOverFloorRatio };
  },

  render(measurements, _settings, allMeasurements) {
    const rows: (string | number)[][] = [];
    const notes: string[] = [];
    for (const measurement of measurements) {
      if (!measurement.result) {
        notes.push(`${measurement.databaseLabel}: ${measurement.error}`);
        continue;
      }
      for (const row of measurement.result.rows) {
        const floor = floorOf(measurement.result.rows, row);
        rows.push([
          measurement.databaseLabel,
          row.name,
          row.cpuMsPerRequest.toFixed(3),
          row.targetMs === undefined
            ? ""
            : `${row.cpuMsPerRequest <= row.targetMs ? "PASS" : "FAIL"} (≤ ${row.targetMs})`,
          floor ? `${(row.cpuMsPerRequest / floor.cpuMsPerRequest).toFixed(2)}×` : "",
          integer(row.requests),
          integer(row.rps),
          ms(row.p99),
          integer(row.non2xx + row.errors),
        ]);
      }
    }
    const how =
      "CPU time (user + system) of the server process over the measured load, from /proc/<pid>/stat (10 ms ticks), " +
      "divided by the requests answered; the warm-up is not counted. For PGlite the database runs inside the process and is " +
      "included; for PostgreSQL its own processes are not. The checkout row is per checkout (four requests and the webhook " +
      `the processor sends, ${CHECKOUT_CONCURRENCY} at a time, the process's idle CPU over the same time subtracted). ` +
      "The floor is React Router alone rendering the same page from constant data (no database, middleware or compression): " +
      "the home page, a product page and a search, each as the signed-in shopper sees it (an unconfirmed account with one " +
      `item in the basket). Each page's floor and the signed-in page are measured in slices taken in turns (${PAGE_SLICE_MS / 1000} s ` +
      `each, the process's CPU over the whole span), ${FLOOR_PAIRS} rounds: their ` +
      "rows are the median round, and the shop's own CPU over the floor is the median of the rounds' differences (and of " +
      `those differences ÷ the round's floor). Checkouts are measured in slices with the floor of GET / as well (${CHECKOUT_SLICE_MS / 1000} s each), ` +
      `${FLOOR_PAIRS} rounds after their warm-up: the row is the median round, the ratio judged the median of the rounds' ` +
      "checkout ÷ floor, and PGlite's against PostgreSQL's the ratio of those two figures.";
    const targets = measurements.flatMap((measurement) => {
      if (!measurement.result) return [];
      const judged = measurement.databaseLabel.startsWith("PostgreSQL");
      const verdict = (isMet: boolean, target: string) =>
        judged ? `${isMet ? "PASS" : "FAIL"} (${target})` : "(judged on PostgreSQL)";
      const lines = pagesOverFloor(measurement.result).map((page) => [
        measurement.databaseLabel,
        `signed-in ${page.page}: the shop's own CPU ÷ the page's floor`,
        `${page.ownOverFloor.toFixed(2)} (${page.ownMs.toFixed(3)} ms over ${page.floorMs.toFixed(3)})`,
        verdict(page.ownOverFloor <= OWN_OVER_FLOOR_TARGET, `≤ ${OWN_OVER_FLOOR_TARGET}`),
      ]);
      const checkout = checkoutOverFloor(measurement.result);
      if (checkout !== undefined)
        lines.push([
          measurement.databaseLabel,
          `${CHECKOUT} ÷ the floor of GET /`,
          `${checkout.toFixed(2)}×`,
          verdict(checkout <= CHECKOUT_OVER_FLOOR_TARGET, `≤ ${CHECKOUT_OVER_FLOOR_TARGET}×`),
        ]);
      return lines;
    });
    for (const { name, ratio } of pgliteAgainstPostgres(measurements)) {
      targets.push([
        "PGlite ÷ PostgreSQL",
        name,
        `${ratio.toFixed(2)}×`,
        judgedInTurns(allMeasurements)
          ? "(judged in turns: PGlite against PostgreSQL)"
          : `${ratio <= PGLITE_OVER_POSTGRES_TARGET ? "PASS" : "FAIL"} (≤ ${PGLITE_OVER_POSTGRES_TARGET}×)`,
      ]);
    }
    return [
      how,
      "",
      table(
        ["Database", "Request", "CPU ms/request", "Target", "÷ floor", "Requests", "req/s", "p99", "Failed"],
        rows,
        ["l", "l", "r", "l", "r", "r", "r", "r", "r"],
      ),
      "",
      ...(targets.length > 0 ? [table(["Compared", "What", "Figure", "Target"], targets, ["l", "l", "r", "l"])] : []),
      ...notes.map((note) => `⚠️ ${note}`),
    ].join("\n");
  },

  missedTargets(result, databaseLabel) {
    const missed = result.rows
      .filter((row) => row.targetMs !== undefined && row.cpuMsPerRequest > row.targetMs)
      .map((row) => `${databaseLabel}, ${row.name}: ${row.cpuMsPerRequest} ms CPU > ${row.targetMs} ms`);
    // A figure over failed answers (an error page is cheap to render) measures nothing: the floor's included.
    for (const row of result.rows) {
      if (row.non2xx + row.errors > 0) missed.push(`${databaseLabel}, ${row.name}: ${row.non2xx + row.errors} failed`);
    }
    if (databaseLabel.startsWith("PostgreSQL")) {
      for (const page of pagesOverFloor(result)) {
        if (page.ownOverFloor > OWN_OVER_FLOOR_TARGET)
          missed.push(
            `${databaseLabel}, signed-in ${page.page}: the shop's own CPU ${page.ownOverFloor} of the floor > ${OWN_OVER_FLOOR_TARGET}`,
          );
      }
      const checkout = checkoutOverFloor(result);
      if (checkout !== undefined && checkout > CHECKOUT_OVER_FLOOR_TARGET)
        missed.push(`${databaseLabel}, ${CHECKOUT}: ${checkout}× the floor of GET / > ${CHECKOUT_OVER_FLOOR_TARGET}×`);
    }
    return missed;
  },

  missedTargetsAcross(measurements, allMeasurements) {
    if (judgedInTurns(allMeasurements)) return [];
    return pgliteAgainstPostgres(measurements)
      .filter(({ ratio }) => ratio > PGLITE_OVER_POSTGRES_TARGET)
      .map(
        ({ name, ratio }) => `PGlite, ${name}: ${ratio.toFixed(2)}× PostgreSQL's CPU > ${PGLITE_OVER_POSTGRES_TARGET}×`,
      );
  },
};

/**
 * PGlite's CPU per basket change and per checkout ÷ PostgreSQL's, from the same run. A checkout's, when both databases
 * measured it in turns with the floor, is the ratio of the two checkouts ÷ floor: each database's part of the run is
 * minutes from the other's, and the floor, the same React Router server for both, moves with the machine meanwhile.
 */
function pgliteAgainstPostgres(
  measurements: readonly { database: string; result?: CpuResult }[],
): { name: string; ratio: number }[] {
  const pglite = measurements.find((measurement) => measurement.database === "pglite")?.result;
  const postgres = measurements.find((measurement) => measurement.database === "postgres")?.result;
  if (!pglite || !postgres) return [];
  return PGLITE_COMPARED.flatMap((name) => {
    if (name === CHECKOUT && pglite.checkoutOverFloor !== undefined && postgres.checkoutOverFloor)
      return [
        { name: `${name}, each ÷ its floor of GET /`, ratio: pglite.checkoutOverFloor / postgres.checkoutOverFloor },
      ];
    const a = pglite.rows.find((row) => row.name === name)?.cpuMsPerRequest;
    const b = postgres.rows.find((row) => row.name === name)?.cpuMsPerRequest;
    return a !== undefined && b ? [{ name, ratio: a / b }] : [];
  });
}

/** A signed-in shopper's home page, as their browser asks for it. */
export function signedInHomeLoad(
  baseUrl: string,
  cookie: string,
): Omit<LoadOptions, "durationS" | "warmupS" | "connections"> {
  return signedInLoad(baseUrl, cookie, "/");
}

/** A signed-in shopper's page, as their browser asks for it. */
export function signedInLoad(
  baseUrl: string,
  cookie: string,
  path: string,
): Omit<LoadOptions, "durationS" | "warmupS" | "connections"> {
  return { url: `${baseUrl}${path}`, headers: { ...BROWSER_HEADERS, cookie } };
}

/** Twenty guest shoppers with a basket each, for the basket load. */
export async function basketShoppers(baseUrl: string): Promise<string[]> {
  const cookies: string[] = [];
  for (let index = 0; index < 20; index += 1) cookies.push((await newShopper(baseUrl)).cookie);
  return cookies;
}

/** Basket changes as the enhanced pages make them: each connection adds a book for a shopper, then takes it out again. */
export function basketLoad(
  baseUrl: string,
  cookies: string[],
): Omit<LoadOptions, "durationS" | "warmupS" | "connections"> {
  let next = 0;
  const body = JSON.stringify({ productId: BENCH_PRODUCT.id });
  return {
    url: `${baseUrl}/basket/add`,
    headers: JSON_HEADERS,
    requests: [
      {
        name: "add",
        method: "POST",
        path: "/basket/add",
        body,
        headersFor: (context) => {
          context.cookie = cookies[next++ % cookies.length];
          return { cookie: context.cookie as string };
        },
      },
      {
        name: "remove",
        method: "POST",
        path: "/basket/remove",
        body,
        headersFor: (context) => ({ cookie: context.cookie as string }),
      },
    ],
  };
}

/** A new account through the sign-in form (as a browser without JavaScript posts it); returns its session cookie. */
export async function registerShopper(baseUrl: string): Promise<string> {
  const response = await timedFetch(`${baseUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    body: new URLSearchParams({
      intent: "register",
      email: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
      password: "correct horse battery staple",
    }).toString(),
  });
  const cookie = sessionCookieOf(response.headers);
  if (response.status !== 302 || !cookie) throw new Error(describeAnswer("POST /login (register)", response));
  // A signed-in shopper with something in the basket: the header then shows a name and a count.
  await addToBasket(baseUrl, cookie);
  return cookie;
}

/**
 * Whole checkouts by new shoppers for `durationS`, a few at a time; CPU per checkout, idle CPU subtracted. After
 * `warmupS` of checkouts not counted, as every other row has its warm-up.
 */
export async function measureCheckouts(
  server: RunningServer,
  durationS: number,
  log: (message: string) => void,
  warmupS: number,
): Promise<CpuRow> {
  const name = CHECKOUT;
  log(`${server.label}: CPU per request, ${name}`);
  if (warmupS > 0) await checkoutCpu(server.baseUrl, [server.pid], warmupS);
  const measured = await checkoutCpu(server.baseUrl, [server.pid], durationS);
  const row: CpuRow = {
    name,
    targetMs: TARGETS_MS[name],
    cpuMsPerRequest: measured.cpuMsPerCheckout[0]!,
    requests: measured.checkouts,
    rps: measured.checkoutsPerSecond,
    p99: measured.p99,
    non2xx: measured.failed,
    errors: 0,
  };
  log(`  ${row.cpuMsPerRequest} ms CPU/checkout, ${row.rps} checkouts/s, p99 ${ms(row.p99)}, failed ${row.non2xx}`);
  return row;
}

/** What `checkoutCpu` measured: CPU per checkout in each process asked about, in their order. */
export interface CheckoutCpu {
  cpuMsPerCheckout: number[];
  checkouts: number;
  failed: number;
  checkoutsPerSecond: number;
  p99: number;
}

/**
 * Whole checkouts by new guests of the shop at `shopUrl` for `durationS`, CHECKOUT_CONCURRENCY at a time, the card
 * confirmed wherever the payment page says (the shop's mounted processor, or the processor's own origin), and the
 * CPU each of `pids` spent per checkout: the webhooks that follow included, each process's idle CPU subtracted.
 */
export async function checkoutCpu(shopUrl: string, pids: readonly number[], durationS: number): Promise<CheckoutCpu> {
  const cpuOf = () =>
    pids.map((pid) => {
      const seconds = cpuSecondsOf(pid);
      if (seconds === undefined) throw new Error(`cannot read the CPU time of process ${pid} from /proc`);
      return seconds;
    });
  const payment = await findPaymentConfig(shopUrl);
  const idleBefore = cpuOf();
  await sleep(WEBHOOK_SETTLE_MS);
  const idlePerMs = cpuOf().map((seconds, index) => (seconds - idleBefore[index]!) / WEBHOOK_SETTLE_MS);

  const started = performance.now();
  const before = cpuOf();
  const { latencies, failed } = await runCheckouts(shopUrl, payment, durationS * 1000);
  const elapsedMs = performance.now() - started;
  await sleep(WEBHOOK_SETTLE_MS);
  const after = cpuOf();
  return {
    cpuMsPerCheckout: after.map((seconds, index) => {
      const cpuMs = (seconds - before[index]!) * 1000 - idlePerMs[index]! * 1000 * (elapsedMs + WEBHOOK_SETTLE_MS);
      return round(cpuMs / Math.max(1, latencies.length), 3);
    }),
    checkouts: latencies.length,
    failed,
    checkoutsPerSecond: round((latencies.length * 1000) / elapsedMs, 1),
    p99: round(percentile(latencies, 0.99), 1),
  };
}

/**
 * A side of `cpuInSlices` that makes whole checkouts by new guests on a shop, CHECKOUT_CONCURRENCY at a time, for
 * each slice. Slices of half a second: about 80 checkouts, and a round of 5 s per side is ten turns each.
 */
export async function checkoutSide(shop: { baseUrl: string; pid: number }): Promise<SlicedSide> {
  const payment = await findPaymentConfig(shop.baseUrl);
  return {
    pid: shop.pid,
    async runSlice(ms) {
      const { latencies, failed } = await runCheckouts(shop.baseUrl, payment, ms);
      return { done: latencies.length, failed, p99: percentile(latencies, 0.99) };
    },
  };
}

/** How long each side's turn lasts when checkouts are measured in slices (`checkoutSide`). */
export const CHECKOUT_SLICE_MS = 500;

/** Whole checkouts by new guests for `ms`, CHECKOUT_CONCURRENCY at a time: each one's latency, and those that failed. */
async function runCheckouts(
  shopUrl: string,
  payment: PaymentConfig,
  ms: number,
): Promise<{ latencies: number[]; failed: number }> {
  const ends = performance.now() + ms;
  const latencies: number[] = [];
  let failed = 0;
  const worker = async () => {
    while (performance.now() < ends) {
      const began = performance.now();
      if (await oneCheckout(shopUrl, payment)) latencies.push(performance.now() - began);
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: CHECKOUT_CONCURRENCY }, worker));
  return { latencies, failed };
}

/** One whole checkout by a new guest: add, create, confirm at the processor, record. False when any step failed. */
async function oneCheckout(shopUrl: string, payment: PaymentConfig): Promise<boolean> {
  try {
    const { cookie } = await addToBasket(shopUrl, undefined);
    const { intentId, clientSecret } = await createPayment(shopUrl, cookie, BENCH_PRODUCT.priceCents);
    await confirmPayment(payment, intentId, clientSecret);
    await recordOrder(shopUrl, cookie, intentId);
    return true;
  } catch {
    return false;
  }
}
