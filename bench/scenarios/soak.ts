import { availableParallelism } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { isShuttingDown, withTimeout } from "../lib/cleanup.ts";
import { cpuSecondsOf, isAlive, rssMiB } from "../lib/process-stats.ts";
import { watchPostgresWaits, type PostgresWaits } from "../lib/postgres-waits.ts";
import { integer, ms, percentile, round, summariseLatencies, table, type Latencies } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import {
  addToBasket,
  confirmPayment,
  createPayment,
  describeAnswer,
  findPaymentConfig,
  recordOrder,
  timedFetch,
  type TimedResponse,
} from "../lib/shop-client.ts";
import { BROWSER_HEADERS } from "./throughput.ts";

/**
 * Pause between a shopper's actions, uniformly random in a range (milliseconds). Two paces are measured: shoppers
 * who pause 1–5 s, as people reading a page and typing a card do (the run the targets judge), and shoppers who pause
 * only 200–600 ms, about five times the load, to show where the machine's capacity ends.
 */
export const PACED_THINK_MS = { min: 1_000, max: 5_000 } as const;
export const HURRIED_THINK_MS = { min: 200, max: 600 } as const;
/**
 * Shoppers start at random within the first pause length (the range's maximum), as if they had been shopping for a
 * while already, rather than all in the same instant.
 */
/** Targets: no errors anywhere; p99 (all requests) under this on PostgreSQL. */
export const SOAK_P99_TARGET_MS = 100;

/** Kept per simulated shopper: whether a request of its own has timed out (the server may still carry it out). */
interface ShopperState {
  hasAbandonedWork: boolean;
}
/**
 * The shop's answers to a shopper whose view is out of date: the total changed or the basket emptied under it (a late
 * order record), the card was already confirmed (a late confirm). Correct answers, which a real shopper's page shows.
 */
const STALE_VIEW_REFUSAL = /TOTAL_MISMATCH|BASKET_EMPTY|already succeeded/;
/** Prefix of the errorKinds of follow-ons (see `act`). */
const FOLLOW_ON = "after the shopper's own timeout: ";

const ACTIONS = [
  { action: "browse", request: "GET /" },
  { action: "add", request: "POST /basket/add" },
  { action: "create", request: "POST /payments/create" },
  { action: "confirm", request: "POST /_processor/…/confirm" },
  { action: "record", request: "POST /orders/record" },
  { action: "orders", request: "GET /orders" },
] as const;
type Action = (typeof ACTIONS)[number]["action"];

export interface ActionFigures extends Latencies {
  action: Action;
  request: string;
  /** Answers as expected (their latencies are the percentiles). */
  ok: number;
  /** Unexpected status or body, network error or timeout (10 s). */
  errors: number;
  /** ok ÷ elapsed seconds. */
  perSecond: number;
}

/** One slice of the run (by the time each answer arrived), to see whether it degrades as it goes on. */
export interface SoakWindow {
  fromS: number;
  toS: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

export interface SoakResult {
  shoppers: number;
  plannedS: number;
  /** From the first shopper's start to the last one's end (in-flight actions finish after the planned duration). */
  elapsedS: number;
  thinkMs: { min: number; max: number };
  /** Rounds of browse → add → pay → orders completed without an error. */
  cycles: number;
  checkouts: number;
  checkoutsPerSecond: number;
  /** All successful requests ÷ elapsedS. */
  requestsPerSecond: number;
  /** Every request, whatever the action. */
  overall: Latencies & { ok: number; errors: number };
  actions: ActionFigures[];
  timeline: SoakWindow[];
  /** The server process's resident memory (MiB) at the start, at the end and at its highest (sampled every second). */
  serverRssMiB: { start: number; end: number; max: number } | null;
  /**
   * CPU seconds used during the soak by the shop's server process and by the bench itself (the simulated shoppers),
   * and the share of the machine's cores over the elapsed time: says whether the shoppers or the shop ran out of CPU.
   */
  cpu: { serverS: number | null; benchS: number; machineCores: number; serverShare: number | null; benchShare: number };
  /** PostgreSQL only: what its sessions waited on during the measured part (null if it could not be sampled). */
  postgresWaits?: PostgresWaits | null;
  /** Seconds into the run when the server process was found gone (the soak then stops at once); absent if it lived. */
  serverGoneAtS?: number;
  /** The first few failures of each action, as "action: what happened". */
  errorSample: string[];
  /** Every failure, grouped by action and message (numbers and ids blanked), with its count. */
  errorKinds: Record<string, number>;
  serverErrorLogLines: number;
  serverErrorLogSample: string[];
}

interface SoakPace {
  name: string;
  title: string;
  thinkMs: { min: number; max: number };
  /** Whether the p99 target applies (errors always count). */
  judgesP99: boolean;
}

/**
 * Many shoppers at once, for a while, each doing what shoppers do with pauses in between: look at the home page, put
 * a product in the basket, pay for it (create the payment, confirm the card at the built-in processor, record the
 * order) and look at their orders; then again. Each simulated shopper keeps its session (its orders add up).
 */
function createSoakScenario({ name, title, thinkMs: THINK_MS, judgesP99 }: SoakPace): Scenario<SoakResult> {
  return {
    name,
    title,
    scope: "each-database",
    plannedSeconds: (settings) => settings.soakWarmupS + settings.soakS + 20,

    async run({ server, settings, log }) {
      const errorLinesBefore = server.errorLog().count;
      const paymentConfig = await findPaymentConfig(server.baseUrl);
      const shoppers = settings.soakShoppers;
      const warmupS = settings.soakWarmupS;
      log(
        `${server.label}: soak, ${shoppers} shoppers for ${warmupS} s (warm-up) + ${settings.soakS} s (think ${THINK_MS.min}–${THINK_MS.max} ms)`,
      );

      const latencies = new Map<Action, number[]>(ACTIONS.map(({ action }) => [action, []]));
      const errors = new Map<Action, number>(ACTIONS.map(({ action }) => [action, 0]));
      const errorSample: string[] = [];
      const errorKinds: Record<string, number> = {};
      /** [seconds since the measured part began when the answer arrived, latency ms or -1 for an error] */
      const events: [number, number][] = [];
      let cycles = 0;
      let stop = false;

      // The same shoppers run through a warm-up first (their arrivals spread out, the server's code optimised, as in a
      // shop that has been open a while); only requests sent after it are measured. Errors count throughout.
      const warmupStarted = performance.now();
      const started = warmupStarted + warmupS * 1000;
      const deadline = started + settings.soakS * 1000;
      const measured = (sentAt: number) => sentAt >= started;
      const over = () => stop || isShuttingDown() || performance.now() >= deadline;
      const think = () => sleep(THINK_MS.min + Math.random() * (THINK_MS.max - THINK_MS.min));

      /**
       * One request of one action: its latency on success; on failure counted (with the first few messages) and rethrown.
       * `state.hasAbandonedWork` is set once one of the shopper's requests has timed out. The server may still carry it
       * out, and what it set off can land much later (a charged card's order is recorded by the processor's webhook,
       * retried after 1, 2, 4 … s), so from then on the shop's refusals of a view that work made stale are follow-ons
       * of that timeout (kept apart in `errorKinds`), not faults of their own. A shopper with nothing abandoned has no
       * other tab that could change its basket: such a refusal then is a fault.
       */
      const act = async <T>(
        state: ShopperState,
        action: Action,
        call: () => Promise<T & { response: TimedResponse }>,
      ): Promise<T> => {
        const sentAt = performance.now();
        try {
          const result = await call();
          if (measured(sentAt)) {
            latencies.get(action)!.push(result.response.ms);
            events.push([(performance.now() - started) / 1000, result.response.ms]);
          }
          return result;
        } catch (error) {
          errors.set(action, errors.get(action)! + 1);
          events.push([Math.max(0, (performance.now() - started) / 1000), -1]);
          const message = `${action}: ${error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error)}`;
          if (errorSample.filter((sample) => sample.startsWith(`${action}:`)).length < 3) errorSample.push(message);
          const isFollowOn = state.hasAbandonedWork && STALE_VIEW_REFUSAL.test(message);
          if (error instanceof Error && error.name === "TimeoutError") state.hasAbandonedWork = true;
          const kind =
            (isFollowOn ? FOLLOW_ON : "") +
            message
              .replace(/\b(pi|req)_[A-Za-z0-9_]+/g, "…")
              .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "…")
              .replace(/\d+/g, "#")
              .slice(0, 200);
          errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
          throw error;
        }
      };
      const page = async (path: string, cookie: string | undefined) => {
        const response = await timedFetch(`${server.baseUrl}${path}`, {
          headers: cookie ? { ...BROWSER_HEADERS, cookie } : BROWSER_HEADERS,
        });
        if (response.status !== 200) throw new Error(describeAnswer(`GET ${path}`, response));
        return { response };
      };

      async function shopper() {
        await sleep(Math.random() * THINK_MS.max);
        const state: ShopperState = { hasAbandonedWork: false };
        let cookie: string | undefined;
        while (!over()) {
          try {
            await act(state, "browse", () => page("/", cookie));
            await think();
            if (over()) break;
            const added = await act(state, "add", () => addToBasket(server.baseUrl, cookie));
            cookie = added.cookie;
            await think();
            if (over()) break;
            // Paying is one unit: once the payment exists, the card is confirmed and the order recorded even after the deadline.
            const shopperCookie = cookie;
            const payment = await act(state, "create", () =>
              createPayment(server.baseUrl, shopperCookie, added.basket.subtotalCents),
            );
            await think(); // Typing the card.
            await act(state, "confirm", async () => ({
              response: await confirmPayment(paymentConfig, payment.intentId, payment.clientSecret),
            }));
            await act(state, "record", () => recordOrder(server.baseUrl, shopperCookie, payment.intentId));
            await think();
            if (over()) break;
            await act(state, "orders", () => page("/orders", shopperCookie));
            if (measured(performance.now())) cycles += 1;
            await think();
          } catch {
            // Counted by act(); a basket left with items is priced anew by the next add's answer. Start over after a pause.
            await think();
          }
        }
      }

      const rss: number[] = [];
      let serverGoneAtS: number | undefined;
      const sampler = setInterval(() => {
        const value = rssMiB(server.pid);
        if (value !== undefined) {
          if (measured(performance.now())) rss.push(value);
        } else if (serverGoneAtS === undefined && !isAlive(server.pid)) {
          // Hammering a dead port for the rest of the run would only pile up meaningless errors.
          serverGoneAtS = round((performance.now() - warmupStarted) / 1000, 1);
          stop = true;
          log(`  the server process (pid ${server.pid}) is gone, ${serverGoneAtS} s into the soak: stopping`);
        }
      }, 1_000);
      // Memory and CPU are counted from the end of the warm-up, as the latencies are.
      let firstRss = rssMiB(server.pid);
      let serverCpuBefore = cpuSecondsOf(server.pid);
      let benchCpuBefore = process.cpuUsage();
      let waitsWatch: Promise<{ stop(): Promise<PostgresWaits> } | null> | undefined;
      let postgresWaits: PostgresWaits | null | undefined;
      const baseline = setTimeout(() => {
        firstRss = rssMiB(server.pid);
        serverCpuBefore = cpuSecondsOf(server.pid);
        benchCpuBefore = process.cpuUsage();
        if (server.databaseUrl) waitsWatch = watchPostgresWaits(server.databaseUrl).catch(() => null);
      }, warmupS * 1000);
      try {
        // Every request gives up after 10 s and a payment is at most three of them: this bounds the tail.
        await withTimeout(
          Promise.all(Array.from({ length: shoppers }, () => shopper())),
          (warmupS + settings.soakS + 60) * 1000,
          "the soak",
        );
      } finally {
        stop = true;
        clearInterval(sampler);
        clearTimeout(baseline);
        // Stopped here so that a soak that throws does not leave the sampler polling (and the bench unable to exit).
        if (waitsWatch) postgresWaits = (await (await waitsWatch)?.stop()) ?? null;
      }
      const lastRss = rssMiB(server.pid);
      const elapsedS = (performance.now() - started) / 1000;
      const serverCpuAfter = cpuSecondsOf(server.pid);
      const benchCpu = process.cpuUsage(benchCpuBefore);
      const serverS =
        serverCpuBefore !== undefined && serverCpuAfter !== undefined
          ? round(serverCpuAfter - serverCpuBefore, 1)
          : null;
      const benchS = round((benchCpu.user + benchCpu.system) / 1e6, 1);
      const cores = availableParallelism();

      const all = [...latencies.values()].flat();
      const totalErrors = [...errors.values()].reduce((sum, count) => sum + count, 0);
      const windowS = Math.max(1, Math.round(settings.soakS / 6));
      const timeline: SoakWindow[] = [];
      for (let from = 0; from < elapsedS; from += windowS) {
        const inWindow = events.filter(([at]) => at >= from && at < from + windowS);
        const ok = inWindow.filter(([, latency]) => latency >= 0).map(([, latency]) => latency);
        timeline.push({
          fromS: from,
          toS: Math.min(round(elapsedS, 1), from + windowS),
          requests: ok.length,
          errors: inWindow.length - ok.length,
          p50: round(percentile(ok, 0.5), 2),
          p99: round(percentile(ok, 0.99), 2),
        });
      }
      const checkouts = latencies.get("record")!.length;
      const errorLog = server.errorLog(errorLinesBefore);
      const result: SoakResult = {
        shoppers,
        plannedS: settings.soakS,
        elapsedS: round(elapsedS, 2),
        thinkMs: { ...THINK_MS },
        cycles,
        checkouts,
        checkoutsPerSecond: round(checkouts / elapsedS, 2),
        requestsPerSecond: round(all.length / elapsedS, 1),
        overall: { ...summariseLatencies(all), ok: all.length, errors: totalErrors },
        actions: ACTIONS.map(({ action, request }) => ({
          action,
          request,
          ok: latencies.get(action)!.length,
          errors: errors.get(action)!,
          perSecond: round(latencies.get(action)!.length / elapsedS, 1),
          ...summariseLatencies(latencies.get(action)!),
        })),
        timeline,
        serverRssMiB:
          firstRss !== undefined && lastRss !== undefined
            ? { start: firstRss, end: lastRss, max: Math.max(firstRss, lastRss, ...rss) }
            : null,
        cpu: {
          serverS,
          benchS,
          machineCores: cores,
          serverShare: serverS === null ? null : round(serverS / elapsedS / cores, 2),
          benchShare: round(benchS / elapsedS / cores, 2),
        },
        ...(postgresWaits !== undefined ? { postgresWaits } : {}),
        ...(serverGoneAtS !== undefined ? { serverGoneAtS } : {}),
        errorSample,
        errorKinds,
        serverErrorLogLines: errorLog.count - errorLinesBefore,
        serverErrorLogSample: errorLog.first,
      };
      log(
        `  ${result.requestsPerSecond} req/s, ${result.checkoutsPerSecond} checkouts/s, p50 ${ms(result.overall.p50)}, p99 ${ms(result.overall.p99)}, ` +
          `errors ${totalErrors}${errorSample[0] ? ` (first: ${errorSample[0]})` : ""}`,
      );
      return result;
    },

    missedTargets(result, databaseLabel) {
      const missed: string[] = [];
      if (result.serverGoneAtS !== undefined)
        missed.push(`soak (${databaseLabel}): the server process died ${result.serverGoneAtS} s in`);
      if (judgesP99) {
        if (result.overall.errors > 0) missed.push(`soak (${databaseLabel}): ${result.overall.errors} errors`);
      } else {
        // The capacity run loads the server past what it can serve on purpose: requests that wait past the 10 s
        // timeout are that limit, reported in its section, and so are the follow-ons of a shopper's own timeout (see
        // `act`); any other failure (a 5xx, a wrong answer, a refused connection) means something broke under load,
        // and is a missed target.
        const broken = Object.entries(result.errorKinds)
          .filter(([kind]) => !kind.includes("TimeoutError") && !kind.startsWith(FOLLOW_ON))
          .reduce((total, [, count]) => total + count, 0);
        if (broken > 0) missed.push(`soak, hurried (${databaseLabel}): ${broken} errors other than timeouts`);
      }
      if (judgesP99 && databaseLabel.startsWith("PostgreSQL") && !(result.overall.p99 < SOAK_P99_TARGET_MS)) {
        missed.push(`soak (${databaseLabel}): p99 ${ms(result.overall.p99)} (target < ${SOAK_P99_TARGET_MS} ms)`);
      }
      return missed;
    },

    render(measurements, settings) {
      const rows: (string | number)[][] = [];
      const timelines: string[] = [];
      const warnings: string[] = [];
      for (const measurement of measurements) {
        if (!measurement.result) {
          rows.push([measurement.databaseLabel, "(failed)", "", "", "", "", "", ""]);
          warnings.push(`${measurement.databaseLabel}: ${measurement.error}`);
          continue;
        }
        const result = measurement.result;
        const isPostgres = measurement.database === "postgres";
        const p99Verdict =
          judgesP99 && isPostgres ? (result.overall.p99 < SOAK_P99_TARGET_MS ? " (PASS)" : " (**FAIL**)") : "";
        rows.push([
          measurement.databaseLabel,
          "all requests",
          `${result.requestsPerSecond.toFixed(1)} req/s, ${result.checkoutsPerSecond.toFixed(1)} checkouts/s`,
          msOrDash(result.overall.p50),
          `${msOrDash(result.overall.p99)}${p99Verdict}`,
          msOrDash(result.overall.max),
          integer(result.overall.ok),
          `${integer(result.overall.errors)}${result.overall.errors > 0 ? " (**FAIL**)" : ""}`,
        ]);
        for (const action of result.actions) {
          rows.push([
            "",
            action.request,
            `${action.perSecond.toFixed(1)}/s`,
            msOrDash(action.p50),
            msOrDash(action.p99),
            msOrDash(action.max),
            integer(action.ok),
            integer(action.errors),
          ]);
        }
        timelines.push(
          `${measurement.databaseLabel}: ` +
            result.timeline
              .map(
                (slice) =>
                  `${slice.fromS}–${slice.toS} s: ${integer(slice.requests)} req, p99 ${msOrDash(slice.p99)}${slice.errors > 0 ? `, ${slice.errors} errors` : ""}`,
              )
              .join("; ") +
            (result.serverRssMiB
              ? `. Server memory (RSS): ${result.serverRssMiB.start} MiB at the start, ${result.serverRssMiB.end} at the end, ${result.serverRssMiB.max} at most`
              : "") +
            `. CPU: the server ${result.cpu.serverS ?? "?"} s, the simulated shoppers ${result.cpu.benchS} s ` +
            `(${percent(result.cpu.serverShare)} and ${percent(result.cpu.benchShare)} of the machine's ${result.cpu.machineCores} cores).` +
            describeWaits(result.postgresWaits),
        );
        if (result.serverGoneAtS !== undefined) {
          warnings.push(
            `${measurement.databaseLabel}: the server process died ${result.serverGoneAtS} s into the soak, which then stopped (see the run's warnings and servers[].stop in the JSON).`,
          );
        }
        if (result.overall.errors > 0) {
          const kinds = Object.entries(result.errorKinds)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([kind, count]) => `${count} × ${kind}`);
          warnings.push(`${measurement.databaseLabel}: ${result.overall.errors} errors: ${kinds.join(" | ")}`);
        }
        if (result.serverErrorLogLines > 0)
          warnings.push(
            `${measurement.databaseLabel}: the server logged ${result.serverErrorLogLines} error line(s) during the soak (see the JSON).`,
          );
        if (result.elapsedS > result.plannedS + 5) {
          warnings.push(
            `${measurement.databaseLabel}: the last actions ended ${(result.elapsedS - result.plannedS).toFixed(1)} s after the planned ${result.plannedS} s (slow answers at the end).`,
          );
        }
      }
      const shoppers =
        measurements.find((measurement) => measurement.result)?.result?.shoppers ?? settings.soakShoppers;
      const how =
        `${shoppers} simulated shoppers at once for ${settings.soakS} s (BENCH_SOAK_S) after ${settings.soakWarmupS} s of the same as a warm-up ` +
        `(BENCH_SOAK_WARMUP_S: not measured, but its errors count), each starting within the first ${THINK_MS.max / 1000} s and then ` +
        "repeating: `GET /` → add one product → pay (create the payment, confirm the test card at the built-in processor, record the " +
        `order) → \`GET /orders\`, with a random pause of ${THINK_MS.min}–${THINK_MS.max} ms between steps (and while "typing the card"), ` +
        "keeping its session. Plain fetch with keep-alive (pages gzip-compressed as for a browser), 10 s timeout per request; " +
        "a shopper whose request fails pauses and starts its round again. Figures over successful answers; per action: rate, " +
        `p50, p99, slowest. ` +
        (judgesP99
          ? `Targets: no errors; p99 of all requests under ${SOAK_P99_TARGET_MS} ms on PostgreSQL.`
          : `About five times the paced run's load, to find the machine's capacity: no p99 target. Requests that wait past ` +
            `the 10 s timeout mark the capacity (listed as errors here, not as a missed target), and so do the shop's refusals that ` +
            `follow from them: a timed-out request the server still carries out leaves that shopper's next steps out of date (the ` +
            `total changed, the basket emptied, the card already confirmed), answered as a real shopper's page would be (listed ` +
            `as "${FOLLOW_ON}…"). Any other error is a missed target.`);
      const main = table(["Database", "Requests", "Throughput", "p50", "p99", "Slowest", "OK", "Errors"], rows, [
        "l",
        "l",
        "r",
        "r",
        "r",
        "r",
        "r",
        "r",
      ]);
      return [
        how,
        "",
        main,
        "",
        "Over time (answers by when they arrived):",
        "",
        ...timelines.map((line) => `- ${line}`),
        ...(warnings.length > 0 ? ["", ...warnings.map((warning) => `⚠️ ${warning}`)] : []),
      ].join("\n");
    },
  };
}

/** One sentence on PostgreSQL's waits during a soak: above all, how long commits waited for the WAL to reach the disk. */
function describeWaits(waits: PostgresWaits | null | undefined): string {
  if (waits === undefined) return "";
  if (waits === null) return " PostgreSQL's waits could not be sampled.";
  const stalls = waits.walFlushStalls;
  const top = waits.events
    .slice(0, 4)
    .map(({ event, samples }) => `${event} ${percent(samples / Math.max(1, waits.samples), 1)}`);
  return (
    ` PostgreSQL (pg_stat_activity every ${waits.intervalMs} ms, ${integer(waits.samples)} samples): ` +
    (stalls.count > 0
      ? `commits waited for the WAL to reach the disk for ${stalls.atLeastMs} ms or more ${stalls.count} times, ` +
        `longest ${integer(stalls.longestMs)} ms, ${integer(stalls.totalMs)} ms in all`
      : `no wait of ${stalls.atLeastMs} ms or more for the WAL to reach the disk`) +
    `; samples with a session waiting: ${top.length > 0 ? top.join(", ") : "none"}.`
  );
}

export const soakScenario = createSoakScenario({
  name: "soak",
  title: "Soak (simulated shoppers)",
  thinkMs: PACED_THINK_MS,
  judgesP99: true,
});
export const hurriedSoakScenario = createSoakScenario({
  name: "hurriedSoak",
  title: "Soak, hurried (capacity)",
  thinkMs: HURRIED_THINK_MS,
  judgesP99: false,
});

function msOrDash(value: number): string {
  return Number.isFinite(value) ? ms(value) : "–";
}

function percent(share: number | null, digits = 0): string {
  return share === null ? "?" : `${round(share * 100, digits)}%`;
}
