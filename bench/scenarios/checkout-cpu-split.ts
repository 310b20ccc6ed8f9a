import { withProcessorApart } from "../lib/processor-apart.ts";
import { median, round, table } from "../lib/report.ts";
import type { Measurement, Scenario } from "../lib/scenario.ts";
import { checkoutCpu, checkoutWarmupS, cpuPerRequestScenario, homeFloorMs, type CpuResult } from "./cpu-per-request.ts";

/** Rounds of mounted-then-apart checkouts, at least: the figures are their medians. */
const MIN_ROUNDS = 3;

/** One round: the same checkouts on the shop with its processor mounted, then on the shop paying a processor apart. */
export interface CheckoutSplitRound {
  /** The shop's process with its processor mounted: what cpuPerRequest's "whole checkout" row measures. */
  mountedMs: number;
  /** The shop's process alone, its processor running apart. */
  shopMs: number;
  /** The processor's process: what Stripe does when the shop has Stripe keys. */
  processorMs: number;
  checkouts: number;
  failed: number;
}

export interface CheckoutCpuSplitResult {
  processorDatabase: string;
  rounds: CheckoutSplitRound[];
  /** The rounds' medians, ms of CPU per checkout. */
  mountedMs: number;
  shopMs: number;
  processorMs: number;
}

/**
 * A whole checkout's CPU (add, create, confirm, record, webhook), split between the shop and the built-in processor.
 * cpuPerRequest measures it in one process, the shop's with its processor mounted, and judges that against the
 * floor; here the same checkouts run in turns on that shop and on a second shop paying a processor that runs as its
 * own process, whose CPU is counted apart. With Stripe keys the processor's part is done at Stripe: the shop's part is
 * what the shop itself spends on a checkout.
 */
export const checkoutCpuSplitScenario: Scenario<CheckoutCpuSplitResult> = {
  name: "checkoutCpuSplit",
  title: "Checkout CPU: the shop's part and the processor's",
  scope: "each-database",
  // The two setups differ by where the processor's tables are, which on PGlite is the shop's own process.
  databases: ["postgres"],
  plannedSeconds: (settings) =>
    2 * checkoutWarmupS(settings.warmupS) + 2 * Math.max(MIN_ROUNDS, settings.rounds) * (settings.durationS + 6) + 20,

  async run({ server, settings, log }) {
    return withProcessorApart(server, settings, log, async ({ processor, shop, processorDatabase }) => {
      const rounds: CheckoutSplitRound[] = [];
      // One round of each first, not counted: both shops warm, their kept reads made.
      const warmupS = checkoutWarmupS(settings.warmupS);
      if (warmupS > 0) {
        await checkoutCpu(server.baseUrl, [server.pid], warmupS);
        await checkoutCpu(shop.baseUrl, [shop.pid, processor.pid], warmupS);
      }
      for (let index = 1; index <= Math.max(MIN_ROUNDS, settings.rounds); index += 1) {
        const mounted = await checkoutCpu(server.baseUrl, [server.pid], settings.durationS);
        const apart = await checkoutCpu(shop.baseUrl, [shop.pid, processor.pid], settings.durationS);
        const measured: CheckoutSplitRound = {
          mountedMs: mounted.cpuMsPerCheckout[0]!,
          shopMs: apart.cpuMsPerCheckout[0]!,
          processorMs: apart.cpuMsPerCheckout[1]!,
          checkouts: mounted.checkouts + apart.checkouts,
          failed: mounted.failed + apart.failed,
        };
        log(
          `  round ${index}: mounted ${measured.mountedMs} ms; apart, shop ${measured.shopMs} ms + processor ${measured.processorMs} ms; failed ${measured.failed}`,
        );
        rounds.push(measured);
      }
      const medianOf = (figure: (round: CheckoutSplitRound) => number) => round(median(rounds.map(figure)), 3);
      return {
        processorDatabase,
        rounds,
        mountedMs: medianOf((measured) => measured.mountedMs),
        shopMs: medianOf((measured) => measured.shopMs),
        processorMs: medianOf((measured) => measured.processorMs),
      };
    });
  },

  render(measurements, _settings, allMeasurements) {
    const rows: (string | number)[][] = [];
    const notes: string[] = [];
    for (const { database, databaseLabel, result, error } of measurements) {
      if (!result) {
        notes.push(`${databaseLabel}: ${error}`);
        continue;
      }
      // The floor of GET / from cpuPerRequest's measurement of the same database in this run, when it made one.
      const cpu = (allMeasurements?.get(cpuPerRequestScenario.name) ?? []) as Measurement<CpuResult>[];
      const cpuResult = cpu.find((measurement) => measurement.database === database)?.result;
      const floorMs = cpuResult && homeFloorMs(cpuResult);
      const overFloor = (ms: number) => (floorMs ? `${(ms / floorMs).toFixed(2)}×` : "");
      const failed = result.rounds.reduce((total, measured) => total + measured.failed, 0);
      rows.push(
        [
          databaseLabel,
          "shop, processor mounted (one process)",
          result.mountedMs.toFixed(2),
          overFloor(result.mountedMs),
          "",
        ],
        [
          databaseLabel,
          "shop, processor apart",
          result.shopMs.toFixed(2),
          overFloor(result.shopMs),
          share(result, result.shopMs),
        ],
        [
          databaseLabel,
          "processor apart",
          result.processorMs.toFixed(2),
          overFloor(result.processorMs),
          share(result, result.processorMs),
        ],
      );
      notes.push(
        `${databaseLabel}: ${result.rounds.length} rounds in turns, ${result.rounds.reduce((total, measured) => total + measured.checkouts, 0)} checkouts, ${failed} failed; the processor on ${result.processorDatabase}.`,
      );
    }
    return [
      "CPU per whole checkout (add, create, confirm, record, webhook), medians of the rounds: the shop with its processor " +
        "mounted, then, in turns, a shop paying a processor run as its own process, each process counted apart. " +
        "÷ floor: over the floor of `GET /` that cpuPerRequest measured in the same run (blank when it did not run).",
      "",
      table(["Database", "Process", "CPU ms/checkout", "÷ floor", "Share apart"], rows, ["l", "l", "r", "r", "r"]),
      "",
      ...notes,
    ].join("\n");
  },
};

/** A process's part of the two processes' CPU, with the processor apart. */
function share(result: CheckoutCpuSplitResult, ms: number): string {
  const whole = result.shopMs + result.processorMs;
  return whole > 0 ? `${Math.round((100 * ms) / whole)} %` : "";
}
