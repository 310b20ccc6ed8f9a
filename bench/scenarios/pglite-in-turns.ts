import { cpuInSlices, runLoadWithCpu } from "../lib/load.ts";
import { median, round, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { startShopServer, type RunningServer } from "../lib/server.ts";
import { projectRoot, type Settings } from "../lib/settings.ts";
import {
  basketLoad,
  basketShoppers,
  CHECKOUT_SLICE_MS,
  checkoutCpu,
  checkoutSide,
  checkoutWarmupS,
  PGLITE_IN_TURNS,
  PGLITE_OVER_POSTGRES_TARGET,
  WEBHOOK_SETTLE_MS,
} from "./cpu-per-request.ts";

/**
 * Rounds in turns, at least: the ratios judged are their medians. Five, not three: on a 2-core machine one shop's 5 s
 * of checkouts read 14 to 28 ms in a row of twelve (2026-11-30, evening), so one round in three could still decide.
 */
const MIN_ROUNDS = 5;

const BASKET = "POST /basket/add + /basket/remove";
const CHECKOUT = "whole checkout (add, create, confirm, record, webhook)";

/** One round: the same load on the PostgreSQL shop, then on the PGlite shop, CPU per request (or per checkout). */
export interface InTurnsRound {
  postgresMs: number;
  pgliteMs: number;
  failed: number;
}

export interface InTurnsFigure {
  name: string;
  rounds: InTurnsRound[];
  /** The median of the rounds' PGlite ÷ PostgreSQL: what the target judges. */
  ratio: number;
  postgresMs: number;
  pgliteMs: number;
}

export interface PgliteInTurnsResult {
  figures: InTurnsFigure[];
}

/**
 * PGlite's CPU per basket change and per whole checkout against PostgreSQL's, measured in turns: a shop on PGlite is
 * started beside the PostgreSQL one and each round runs the same load on both: the basket on one, then on the other;
 * the checkouts in half-second slices taken in turns (`cpuInSlices`). cpuPerRequest
 * measures the two databases minutes apart, each with its own server, and a machine that speeds up or slows down
 * meanwhile moves its ratio by more than the target's margin (1.03 to 1.33 for the same code, 2026-11-30); in turns,
 * both sides of each round's ratio see the same machine.
 */
export const pgliteInTurnsScenario: Scenario<PgliteInTurnsResult> = {
  name: PGLITE_IN_TURNS,
  title: "PGlite against PostgreSQL, in turns",
  scope: "each-database",
  // Runs during PostgreSQL's part of the run, with a PGlite shop of its own.
  databases: ["postgres"],
  plannedSeconds: (settings) =>
    2 * (settings.warmupS + checkoutWarmupS(settings.warmupS)) +
    2 * (Math.max(MIN_ROUNDS, settings.rounds) + 1) * (2 * settings.durationS + 6) +
    20,

  async run({ server: postgres, settings, log }) {
    log("starting a shop on PGlite beside the PostgreSQL one...");
    const pglite = await startShopServer(
      projectRoot,
      { kind: "pglite" },
      { startTimeoutMs: settings.startTimeoutS * 1000 },
    );
    try {
      const shops = [postgres, pglite] as const;
      const shoppers = await Promise.all(shops.map((shop) => basketShoppers(shop.baseUrl)));
      // Both warm before anything counts: their statements prepared, their kept reads made.
      for (const [index, shop] of shops.entries()) {
        await basketCpu(shop, shoppers[index]!, settings, settings.warmupS);
        const warmupS = checkoutWarmupS(settings.warmupS);
        if (warmupS > 0) await checkoutCpu(shop.baseUrl, [shop.pid], warmupS);
      }
      const checkoutSides = await Promise.all(shops.map((shop) => checkoutSide(shop)));
      const basketRounds: InTurnsRound[] = [];
      const checkoutRounds: InTurnsRound[] = [];
      // Round 0 is not counted. The PGlite shop is new, and PostgreSQL's WebAssembly inside it is still being compiled
      // optimised after the warm-up: the first round in turns cost it 1.36 times the next two (2026-11-30).
      for (let index = 0; index <= Math.max(MIN_ROUNDS, settings.rounds); index += 1) {
        // Each database goes first in every other round, so a machine slowing down or speeding up through a round
        // weighs on both sides alike over the rounds.
        const order = index % 2 === 0 ? [0, 1] : [1, 0];
        const baskets: Awaited<ReturnType<typeof basketCpu>>[] = [];
        for (const shopIndex of order)
          baskets[shopIndex] = await basketCpu(shops[shopIndex]!, shoppers[shopIndex]!, settings, settings.durationS);
        // The checkouts in half-second slices taken in turns: the two databases see the same machine within a round.
        const checkouts = await cpuInSlices(checkoutSides, {
          durationS: settings.durationS,
          sliceMs: CHECKOUT_SLICE_MS,
          settleMs: WEBHOOK_SETTLE_MS,
        });
        if (index === 0) {
          log("  round 0 done (not counted)");
          continue;
        }
        basketRounds.push({
          postgresMs: baskets[0]!.ms,
          pgliteMs: baskets[1]!.ms,
          failed: baskets[0]!.failed + baskets[1]!.failed,
        });
        checkoutRounds.push({
          postgresMs: round(checkouts[0]!.cpuMsPerRequest, 3),
          pgliteMs: round(checkouts[1]!.cpuMsPerRequest, 3),
          failed: checkouts[0]!.failed + checkouts[1]!.failed,
        });
        const last = (rounds: InTurnsRound[]) => {
          const { postgresMs, pgliteMs } = rounds.at(-1)!;
          return `PostgreSQL ${postgresMs} ms, PGlite ${pgliteMs} ms (${(pgliteMs / postgresMs).toFixed(2)}×)`;
        };
        log(`  round ${index}: basket ${last(basketRounds)}; checkout ${last(checkoutRounds)}`);
      }
      return { figures: [figureOf(BASKET, basketRounds), figureOf(CHECKOUT, checkoutRounds)] };
    } finally {
      await pglite.stop();
    }
  },

  render(measurements) {
    const rows: (string | number)[][] = [];
    const notes: string[] = [];
    for (const { databaseLabel, result, error } of measurements) {
      if (!result) {
        notes.push(`${databaseLabel}: ${error}`);
        continue;
      }
      for (const figure of result.figures) {
        const failed = figure.rounds.reduce((total, measured) => total + measured.failed, 0);
        rows.push([
          figure.name,
          figure.postgresMs.toFixed(3),
          figure.pgliteMs.toFixed(3),
          `${figure.ratio.toFixed(3)}×`,
          `${figure.ratio <= PGLITE_OVER_POSTGRES_TARGET ? "PASS" : "FAIL"} (≤ ${PGLITE_OVER_POSTGRES_TARGET}×)`,
          figure.rounds.map((measured) => (measured.pgliteMs / measured.postgresMs).toFixed(2)).join(", "),
          failed,
        ]);
      }
      notes.push(`PostgreSQL: ${databaseLabel}; PGlite: a shop of its own, started for these rounds.`);
    }
    return [
      "Server CPU per request (the basket) and per whole checkout, a PostgreSQL shop and a PGlite shop in turns, round " +
        `by round, each after its warm-up (the checkouts in slices of ${CHECKOUT_SLICE_MS / 1000} s taken in turns, each ` +
        "process's CPU over the whole span); the CPU columns are the rounds' medians and the ratio judged the median of " +
        "the rounds' PGlite ÷ PostgreSQL. For PGlite the database runs inside the server process and is counted; for " +
        "PostgreSQL its own processes are not.",
      "",
      table(
        ["Request", "PostgreSQL ms", "PGlite ms", "PGlite ÷ PostgreSQL", "Target", "Rounds' ratios", "Failed"],
        rows,
        ["l", "r", "r", "r", "l", "l", "r"],
      ),
      "",
      ...notes,
    ].join("\n");
  },

  missedTargets(result) {
    return result.figures.flatMap((figure) => {
      const missed: string[] = [];
      if (figure.ratio > PGLITE_OVER_POSTGRES_TARGET)
        missed.push(
          `PGlite, ${figure.name}, in turns: ${figure.ratio.toFixed(3)}× PostgreSQL's CPU > ${PGLITE_OVER_POSTGRES_TARGET}×`,
        );
      // CPU over failed answers (an error is cheap) measures nothing: as cpuPerRequest, a failure misses the target.
      const failed = figure.rounds.reduce((total, measured) => total + measured.failed, 0);
      if (failed > 0) missed.push(`PGlite against PostgreSQL, ${figure.name}, in turns: ${failed} failed`);
      return missed;
    });
  },
};

/** CPU ms per basket request on one shop over `durationS` of the basket load, and the requests that failed. */
async function basketCpu(
  shop: RunningServer,
  cookies: string[],
  settings: Pick<Settings, "connections">,
  durationS: number,
): Promise<{ ms: number; failed: number }> {
  const { result, cpuMsPerRequest } = await runLoadWithCpu(shop.pid, {
    ...basketLoad(shop.baseUrl, cookies),
    connections: settings.connections,
    durationS,
    warmupS: 0,
  });
  return { ms: round(cpuMsPerRequest, 3), failed: result.non2xx + result.errors };
}

function figureOf(name: string, rounds: InTurnsRound[]): InTurnsFigure {
  return {
    name,
    rounds,
    ratio: round(median(rounds.map((measured) => measured.pgliteMs / measured.postgresMs)), 3),
    postgresMs: round(median(rounds.map((measured) => measured.postgresMs)), 3),
    pgliteMs: round(median(rounds.map((measured) => measured.pgliteMs)), 3),
  };
}
