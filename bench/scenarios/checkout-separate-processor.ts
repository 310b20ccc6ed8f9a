import { withProcessorApart } from "../lib/processor-apart.ts";
import { ms, table } from "../lib/report.ts";
import type { Measurement, Scenario } from "../lib/scenario.ts";
import type { StopInfo } from "../lib/server.ts";
import { checkoutScenario, type CheckoutResult } from "./checkout.ts";

export interface SeparateProcessorCheckoutResult extends CheckoutResult {
  /** Where the processor kept its intents: its own PGlite DATA_DIR, or a temporary PostgreSQL database of its own. */
  processorDatabase: string;
  /** Seconds from spawn to ready, each process. */
  startupS: { processor: number; shop: number };
  /** Error-level lines the processor logged during the checkouts (a sane run has none), and the first few. */
  processorErrorLogLines: number;
  processorErrorLogSample: string[];
  /** How each process ended when the bench stopped it. */
  stops: { processor: StopInfo; shop: StopInfo };
}

/**
 * The checkouts of "checkout", with the processor run as its own process (`npm run processor`) and a second shop
 * pointed at it with PROCESSOR_URL and the same three keys, as an operator would run them. The payment page then
 * names the processor's own origin, and the card is confirmed there, cross-origin, as it would be at Stripe.
 */
export const separateProcessorCheckoutScenario: Scenario<SeparateProcessorCheckoutResult> = {
  name: "checkoutSeparateProcessor",
  title: "Checkouts, processor as its own process",
  scope: "each-database",
  plannedSeconds: checkoutScenario.plannedSeconds,

  async run({ server, settings, log }) {
    return withProcessorApart(server, settings, log, async ({ processor, shop, processorDatabase }) => {
      const processorErrorsBefore = processor.errorLog().count;
      let checkouts: CheckoutResult;
      try {
        checkouts = await checkoutScenario.run({
          server: { ...shop, label: `${shop.label}, processor apart` },
          settings,
          log,
        });
      } finally {
        await shop.stop();
      }
      const processorErrors = processor.errorLog(processorErrorsBefore);
      return {
        ...checkouts,
        processorDatabase,
        startupS: { processor: Math.round(processor.startupS * 10) / 10, shop: Math.round(shop.startupS * 10) / 10 },
        processorErrorLogLines: processorErrors.count - processorErrorsBefore,
        processorErrorLogSample: processorErrors.first,
        stops: { processor: await processor.stop(), shop: await shop.stop() },
      };
    });
  },

  render(measurements, settings, allMeasurements) {
    const mountedByDatabase = new Map(
      ((allMeasurements?.get(checkoutScenario.name) ?? []) as Measurement<CheckoutResult>[]).map((measurement) => [
        measurement.database,
        measurement.result,
      ]),
    );
    const ratio = (separate: number, mounted: number) => (mounted > 0 ? `${(separate / mounted).toFixed(2)}×` : "n/a");
    const comparisonRows: (string | number)[][] = [];
    const notes: string[] = [];
    for (const { database, databaseLabel, result } of measurements) {
      if (!result) continue;
      const mounted = mountedByDatabase.get(database);
      notes.push(
        `${databaseLabel}: processor on ${result.processorDatabase}, ready in ${result.startupS.processor} s; its shop ready in ${result.startupS.shop} s.`,
      );
      if (result.processorErrorLogLines > 0) {
        notes.push(
          `⚠️ ${databaseLabel}: the processor logged ${result.processorErrorLogLines} error line(s) (the first ones are in the JSON, \`processorErrorLogSample\`).`,
        );
      }
      for (const [process, stop] of Object.entries(result.stops)) {
        if (stop.exitedEarly || !stop.graceful || stop.exitCode !== 0) {
          notes.push(
            `⚠️ ${databaseLabel}: the ${process} did not run to a clean stop (exit ${stop.signal ?? stop.exitCode}${stop.exitedEarly ? `, by itself at ${stop.exitedEarly.at}` : ""}).`,
          );
        }
      }
      for (const level of result.levels) {
        const mountedLevel = mounted?.levels.find((candidate) => candidate.concurrency === level.concurrency);
        const figures: [string, number, number | undefined, (value: number) => string][] = [
          ["Checkouts/s", level.checkoutsPerSecond, mountedLevel?.checkoutsPerSecond, (value) => value.toFixed(1)],
          ["p50", level.p50, mountedLevel?.p50, ms],
          ["p99", level.p99, mountedLevel?.p99, ms],
        ];
        for (const [figure, separate, mountedValue, format] of figures) {
          comparisonRows.push([
            databaseLabel,
            level.concurrency,
            figure,
            mountedValue === undefined ? "(not measured)" : format(mountedValue),
            format(separate),
            mountedValue === undefined ? "" : ratio(separate, mountedValue),
          ]);
        }
      }
    }
    const comparison =
      comparisonRows.length === 0
        ? "No comparison: nothing was measured with the processor as its own process."
        : table(["Database", "Concurrency", "Figure", "Mounted", "Own process", "Own ÷ mounted"], comparisonRows, [
            "l",
            "r",
            "l",
            "r",
            "r",
            "r",
          ]);
    return [
      "The same checkouts as in Checkouts, through the built-in processor run as its own process (`npm run processor` on its own " +
        "port and database) and a second shop started with `PROCESSOR_URL` and the same three keys, on the same database " +
        "as the mounted run. The payment page names the processor's own origin, so the card is confirmed there; the shop " +
        "creates and checks intents there over HTTP, and the processor's webhooks come back to the shop's /webhooks/stripe.",
      "",
      `Side by side with the mounted processor (medians${settings.rounds > 1 ? ` of ${settings.rounds} rounds` : ""}, measured in the same run; ` +
        "for checkouts/s above 1× is faster, for p50/p99 below 1× is faster):",
      "",
      comparison,
      ...(notes.length > 0 ? ["", ...notes] : []),
      "",
      checkoutScenario.render(measurements, settings),
    ].join("\n");
  },
};
