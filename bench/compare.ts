// `node bench/compare.ts <checkout A> <checkout B>`: server CPU per request of two builds of the shop, measured in one
// run, side by side and in turns (A, B, A, B, …), so that whatever else the machine is doing weighs on both alike. Each
// checkout is a directory holding this repository at some commit, built (`npm run build` there), e.g. a git worktree:
//
//   git worktree add ../storefront-before <commit> && (cd ../storefront-before && npm ci && npm run build)
//   node bench/compare.ts ../storefront-before .
//
// Settings: COMPARE_DATABASE=pglite (default) or postgres (a temporary database each on BENCH_DATABASE_URL's server),
// COMPARE_ROUNDS (default 3), BENCH_DURATION_S (seconds per measurement, default 4), COMPARE_ONLY (a comma-separated
// subset of: guest, signedIn, signedInProduct, basket, checkout). Prints a Markdown table of medians, B ÷ A, and every
// round.
import path from "node:path";
import { deferCleanup, installCleanupHandlers, runAllCleanups } from "./lib/cleanup.ts";
import { runLoadWithCpu, type LoadOptions } from "./lib/load.ts";
import { createTemporaryDatabase } from "./lib/postgres.ts";
import { median, table } from "./lib/report.ts";
import { startShopServer, type DatabaseChoice, type RunningServer } from "./lib/server.ts";
import { DEFAULT_POSTGRES_URL } from "./lib/settings.ts";
import {
  basketLoad,
  basketShoppers,
  measureCheckouts,
  registerShopper,
  FLOOR_PAGES,
  signedInHomeLoad,
  signedInLoad,
} from "./scenarios/cpu-per-request.ts";
import { BROWSER_HEADERS } from "./scenarios/throughput.ts";

const MEASURES = ["guest", "signedIn", "signedInProduct", "basket", "checkout"] as const;
type MeasureName = (typeof MEASURES)[number];

const [rootA, rootB] = process.argv.slice(2).map((root) => path.resolve(root));
if (!rootA || !rootB) {
  console.error("usage: node bench/compare.ts <checkout A> <checkout B>");
  process.exit(1);
}
const database = process.env.COMPARE_DATABASE ?? "pglite";
if (database !== "pglite" && database !== "postgres") throw new Error("COMPARE_DATABASE is pglite or postgres");
const rounds = Number(process.env.COMPARE_ROUNDS ?? 3);
const durationS = Number(process.env.BENCH_DURATION_S ?? 4);
const only = (process.env.COMPARE_ONLY ?? MEASURES.join(",")).split(",").map((name) => name.trim()) as MeasureName[];
const unknown = only.filter((name) => !MEASURES.includes(name));
if (unknown.length > 0) throw new Error(`COMPARE_ONLY: unknown ${unknown.join(", ")} (known: ${MEASURES.join(", ")})`);

installCleanupHandlers();
const log = (message: string) => console.error(`[compare] ${message}`);

async function databaseFor(): Promise<DatabaseChoice> {
  if (database === "pglite") return { kind: "pglite" };
  const temporary = await createTemporaryDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_POSTGRES_URL);
  deferCleanup(`drop ${temporary.name}`, temporary.drop);
  return { kind: "postgres", url: temporary.url, name: temporary.name };
}

/** CPU ms per request over `durationS` of closed-loop load (10 connections), after a second of warm-up not counted. */
async function cpuPerRequest(
  server: RunningServer,
  load: Omit<LoadOptions, "durationS" | "warmupS" | "connections">,
): Promise<number> {
  return (await runLoadWithCpu(server.pid, { ...load, connections: 10, durationS, warmupS: 1 })).cpuMsPerRequest;
}

try {
  const servers = [] as { label: "A" | "B"; server: RunningServer; signedIn: string; basketCookies: string[] }[];
  for (const [label, root] of [
    ["A", rootA],
    ["B", rootB],
  ] as const) {
    const server = await startShopServer(root, await databaseFor(), { env: { AUTH_ATTEMPTS_PER_IP: "100000" } });
    deferCleanup(`stop ${label}`, async () => void (await server.stop()));
    servers.push({
      label,
      server,
      signedIn: await registerShopper(server.baseUrl),
      basketCookies: await basketShoppers(server.baseUrl),
    });
    log(`${label}: ${root} on ${server.label}`);
  }
  const figures = new Map<MeasureName, Record<"A" | "B", number[]>>();
  for (let round = 1; round <= rounds; round++) {
    for (const name of only) {
      for (const { label, server, signedIn, basketCookies } of servers) {
        const value =
          name === "guest"
            ? await cpuPerRequest(server, { url: `${server.baseUrl}/`, headers: BROWSER_HEADERS })
            : name === "signedIn"
              ? await cpuPerRequest(server, signedInHomeLoad(server.baseUrl, signedIn))
              : name === "signedInProduct"
                ? await cpuPerRequest(server, signedInLoad(server.baseUrl, signedIn, FLOOR_PAGES[1]))
                : name === "basket"
                  ? await cpuPerRequest(server, basketLoad(server.baseUrl, basketCookies))
                  : (await measureCheckouts(server, durationS, () => {}, 1)).cpuMsPerRequest;
        const entry = figures.get(name) ?? { A: [], B: [] };
        entry[label].push(value);
        figures.set(name, entry);
        log(`round ${round}, ${name}, ${label}: ${value.toFixed(3)} ms`);
      }
    }
  }
  const rows = [...figures].map(([name, { A, B }]) => [
    name,
    median(A).toFixed(3),
    median(B).toFixed(3),
    `${(median(B) / median(A)).toFixed(2)}`,
    `A ${A.map((value) => value.toFixed(2)).join(" / ")}; B ${B.map((value) => value.toFixed(2)).join(" / ")}`,
  ]);
  console.log(
    `CPU ms per request (per checkout for checkout), ${database}, ${rounds} rounds of ${durationS} s, medians\n`,
  );
  console.log(`A: ${rootA}\nB: ${rootB}\n`);
  console.log(table(["Request", "A", "B", "B ÷ A", "Rounds"], rows, ["l", "r", "r", "r", "l"]));
} finally {
  await runAllCleanups({ final: true });
}
