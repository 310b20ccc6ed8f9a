// `node bench/run.ts` (npm run bench): builds if needed, starts the production server on PGlite and, when available,
// on a fresh PostgreSQL database, runs every scenario, then writes bench/results/latest.json, latest.md and a row of history.md
// (one scenario alone: the same three files in bench/results/<scenario>/, e.g. department-listing/).
// Exit code: 0 all measured and within budget, 1 something failed, 2 measured but a budget was exceeded.
// Settings come from BENCH_* environment variables (BENCH_ONLY=pages,growth runs a part): see bench/README.md.
import os from "node:os";
import path from "node:path";
import { buildStamp, ensureBuild, type BuildInfo } from "./lib/build.ts";
import { deferCleanup, installCleanupHandlers, isShuttingDown, runAllCleanups } from "./lib/cleanup.ts";
import { createTemporaryDatabase, postgresAnswers, redactUrl } from "./lib/postgres.ts";
import { appendHistory } from "./lib/history.ts";
import { cpuBusyPercent, describeMachine, gitCommit, writeResults } from "./lib/report.ts";
import type { Measurement, Scenario } from "./lib/scenario.ts";
import {
  serverNodeOptions,
  startShopServer,
  type DatabaseChoice,
  type DatabaseKind,
  type StopInfo,
} from "./lib/server.ts";
import { projectRoot, readSettings, type Settings } from "./lib/settings.ts";
import { adminOrdersScenario } from "./scenarios/admin-orders.ts";
import { dashboardScenario } from "./scenarios/dashboard.ts";
import { basketScenario } from "./scenarios/basket.ts";
import { catalogueScenario } from "./scenarios/catalogue.ts";
import { checkoutScenario } from "./scenarios/checkout.ts";
import { departmentListingScenario } from "./scenarios/department-listing.ts";
import { cpuPerRequestScenario } from "./scenarios/cpu-per-request.ts";
import { checkoutCpuSplitScenario } from "./scenarios/checkout-cpu-split.ts";
import { pgliteInTurnsScenario } from "./scenarios/pglite-in-turns.ts";
import { separateProcessorCheckoutScenario } from "./scenarios/checkout-separate-processor.ts";
import { growthScenario } from "./scenarios/growth.ts";
import { pageWeightScenario } from "./scenarios/page-weight.ts";
import { pagesScenario } from "./scenarios/pages.ts";
import { productImportScenario } from "./scenarios/product-import.ts";
import { productVariantsScenario } from "./scenarios/product-variants.ts";
import { hurriedSoakScenario, soakScenario } from "./scenarios/soak.ts";
import { throughputScenario } from "./scenarios/throughput.ts";

/**
 * Every scenario, in the order they run against each server. Add new ones here. Those that write to the database
 * (basket, checkout, pages, soak, growth) come after the read-only ones, so that those always measure the freshly
 * seeded shop; growth, which adds 100,000 orders and baskets, comes last of all.
 */
const ALL_SCENARIOS: Scenario<unknown>[] = [
  pageWeightScenario,
  throughputScenario,
  cpuPerRequestScenario,
  checkoutCpuSplitScenario,
  pgliteInTurnsScenario,
  basketScenario,
  checkoutScenario,
  separateProcessorCheckoutScenario,
  pagesScenario,
  soakScenario,
  hurriedSoakScenario,
  growthScenario,
  catalogueScenario,
  adminOrdersScenario,
  dashboardScenario,
  departmentListingScenario,
  productImportScenario,
  productVariantsScenario,
];
const DATABASES: DatabaseKind[] = ["pglite", "postgres"];

/** "page-weight", "Page_Weight" and "pageweight" all name pageWeight. */
const normalise = (name: string) => name.toLowerCase().replace(/[-_\s]/g, "");

/** The scenarios BENCH_ONLY names (all of them without it), in their usual order; throws on an unknown name. */
function selectScenarios(only: string[] | undefined): Scenario<unknown>[] {
  if (!only) return ALL_SCENARIOS;
  const known = new Map(ALL_SCENARIOS.map((scenario) => [normalise(scenario.name), scenario]));
  const unknown = only.filter((name) => !known.has(normalise(name)));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_ONLY: unknown scenario(s) ${unknown.join(", ")}; known: ${ALL_SCENARIOS.map((scenario) => scenario.name).join(", ")}`,
    );
  }
  const wanted = new Set(only.map(normalise));
  return ALL_SCENARIOS.filter((scenario) => wanted.has(normalise(scenario.name)));
}

/** The databases a scenario may run on. */
const databasesOf = (scenario: Scenario<unknown>) => scenario.databases ?? DATABASES;

/**
 * Where this run's results go: BENCH_RESULTS_DIR when set; else a scenario run alone has its own folder named after it
 * (cpuPerRequest: bench/results/cpu-per-request/), so that bench/results/latest.* stay the last whole run.
 */
function resultsDirOf(settings: Settings): string {
  if (settings.resultsDir) return settings.resultsDir;
  const root = path.join(projectRoot, "bench", "results");
  if (!settings.only || SCENARIOS.length !== 1) return root;
  return path.join(
    root,
    SCENARIOS[0]!.name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`),
  );
}

/** The scenarios selected for this run (set once the settings are read). */
let SCENARIOS: Scenario<unknown>[] = ALL_SCENARIOS;

const startedAt = performance.now();
function log(message: string) {
  console.error(`[bench +${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${message}`);
}

interface ServerRecord {
  database: string;
  label: string;
  startupS?: number;
  stop?: StopInfo;
  error?: string;
}

async function main(): Promise<number> {
  installCleanupHandlers();
  let settings: Settings;
  try {
    settings = readSettings(process.env, (partial) => {
      const usable = DATABASES.filter((kind) => kind === "pglite" || partial.postgres !== "off");
      return selectScenarios(partial.only).reduce((total, scenario) => {
        const runsOn = databasesOf(scenario).filter((kind) => usable.includes(kind)).length;
        return total + scenario.plannedSeconds(partial) * (scenario.scope === "once" ? Math.min(1, runsOn) : runsOn);
      }, 0);
    });
    SCENARIOS = selectScenarios(settings.only);
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    return 1;
  }

  const watchdog = setTimeout(() => {
    console.error(`bench: the run exceeded BENCH_TIMEOUT_S=${settings.timeoutS} s; stopping servers and giving up.`);
    void runAllCleanups({ final: true }).finally(() => process.exit(1));
  }, settings.timeoutS * 1000);

  const date = new Date();
  const commit = gitCommit(projectRoot);
  const machine = describeMachine();
  const problems: string[] = [];
  const servers: ServerRecord[] = [];
  const measurements = new Map<string, Measurement[]>(SCENARIOS.map((scenario) => [scenario.name, []]));
  let build: BuildInfo | undefined;
  let postgresNote = "";
  /** Things that make the figures less trustworthy without invalidating them. */
  const warnings: string[] = [];
  let cpuBusyAtStart: number | undefined;

  try {
    log(
      `commit ${commit}, ${machine.cpuModel} x${machine.cores}, Node ${machine.node}, load average ${machine.loadAverageAtStart.join(" ")}`,
    );
    build = await ensureBuild(projectRoot, { force: settings.forceBuild });
    if (build.stale) {
      log(
        `WARNING: ${build.newerSource} is newer than the build (${build.builtAt}); run with BENCH_BUILD=1 to measure the current source.`,
      );
    }
    const stampAtStart = buildStamp(projectRoot);
    cpuBusyAtStart = await cpuBusyPercent(2_000);
    log(`CPU busy before the first server: ${cpuBusyAtStart}% of ${machine.cores} cores (2 s sample)`);
    if (cpuBusyAtStart > 25) {
      warnings.push(
        `Something else kept the CPU ${cpuBusyAtStart}% busy just before the measurements: ` +
          "throughput is likely understated and noisier than usual.",
      );
      log(`WARNING: ${warnings.at(-1)}`);
    }

    if (settings.only) log(`BENCH_ONLY: ${SCENARIOS.map((scenario) => scenario.name).join(", ")}`);
    const needs = (kind: DatabaseKind) => SCENARIOS.some((scenario) => databasesOf(scenario).includes(kind));
    const databases: (() => Promise<DatabaseChoice>)[] = needs("pglite") ? [async () => ({ kind: "pglite" })] : [];
    if (!needs("postgres")) postgresNote = "PostgreSQL not started: none of the selected scenarios runs on it.";
    else if (settings.postgres === "off") postgresNote = "PostgreSQL skipped (BENCH_POSTGRES=0).";
    else if (await postgresAnswers(settings.postgresAdminUrl)) {
      databases.push(async () => {
        if (isShuttingDown()) throw new Error("the bench is shutting down");
        const database = await createTemporaryDatabase(settings.postgresAdminUrl);
        deferCleanup(`drop database ${database.name}`, async () => {
          await database.drop();
          log(`dropped database ${database.name}`);
        });
        log(`created database ${database.name}`);
        return { kind: "postgres", url: database.url, name: database.name };
      });
    } else if (settings.postgres === "on") {
      throw new Error(`PostgreSQL does not answer at ${redactUrl(settings.postgresAdminUrl)}`);
    } else postgresNote = `PostgreSQL skipped: nothing answers at ${redactUrl(settings.postgresAdminUrl)}.`;
    if (postgresNote) log(postgresNote);

    for (const prepare of databases) {
      const record: ServerRecord = { database: "?", label: "?" };
      servers.push(record);
      try {
        const choice = await prepare();
        record.database = choice.kind;
        record.label = choice.kind;
        if (buildStamp(projectRoot) !== stampAtStart) {
          warnings.push(
            `The build changed on disk during the run (someone rebuilt): the ${choice.kind} figures come from a newer build.`,
          );
          log(`WARNING: ${warnings.at(-1)}`);
        }
        log(`starting the server on ${choice.kind}...`);
        const server = await startShopServer(projectRoot, choice, { startTimeoutMs: settings.startTimeoutS * 1000 });
        record.label = server.label;
        record.startupS = Math.round(server.startupS * 10) / 10;
        log(`${server.label} ready at ${server.baseUrl} after ${record.startupS} s (pid ${server.pid})`);
        try {
          for (const scenario of SCENARIOS) {
            const done = measurements.get(scenario.name)!;
            if (!databasesOf(scenario).includes(server.database)) continue;
            if (scenario.scope === "once" && done.some((measurement) => measurement.result)) continue;
            const measurement: Measurement = { database: server.database, databaseLabel: server.label };
            try {
              measurement.result = await scenario.run({ server, settings, log });
            } catch (error) {
              measurement.error = error instanceof Error ? error.message : String(error);
              problems.push(`${scenario.title} on ${server.label}: ${measurement.error}`);
              log(`FAILED: ${scenario.title} on ${server.label}: ${measurement.error}`);
            }
            done.push(measurement);
          }
        } finally {
          record.stop = await server.stop();
          log(
            `${server.label} stopped (${record.stop.graceful ? "gracefully" : "killed"}, exit ${record.stop.signal ?? record.stop.exitCode})`,
          );
          if (record.stop.exitedEarly) {
            warnings.push(
              `${server.label} exited by itself (${record.stop.signal ?? `code ${record.stop.exitCode}`}) at ${record.stop.exitedEarly.at}, ` +
                "before the bench stopped it: figures measured after that are failures (its last log lines are in the JSON, servers[].stop).",
            );
          } else if (!record.stop.graceful || record.stop.exitCode !== 0) {
            warnings.push(
              `${server.label} did not shut down cleanly on SIGTERM (exit ${record.stop.signal ?? record.stop.exitCode}).`,
            );
          }
        }
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error);
        problems.push(record.error);
        log(`FAILED: ${record.error}`);
      } finally {
        // Drop this database now rather than at the end: nothing else needs it.
        await runAllCleanups();
      }
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
    log(`FAILED: ${problems.at(-1)}`);
  } finally {
    await runAllCleanups();
    clearTimeout(watchdog);
  }

  // A scenario whose database was not there this run (growth without PostgreSQL) says so rather than vanishing.
  for (const scenario of SCENARIOS) {
    const done = measurements.get(scenario.name)!;
    if (done.length > 0) continue;
    const missing = databasesOf(scenario).filter(
      (kind) => !servers.some((server) => server.database === kind && server.startupS !== undefined),
    );
    done.push({
      database: missing[0] ?? "?",
      databaseLabel: missing[0] === "postgres" ? "PostgreSQL" : missing[0] === "pglite" ? "PGlite" : "?",
      error:
        `not measured: it runs on ${databasesOf(scenario).join(" or ")} only, and no such server ran` +
        (postgresNote ? ` (${postgresNote})` : ""),
    });
  }

  const anyMeasured = [...measurements.values()].some((list) => list.some((measurement) => measurement.result));
  if (!anyMeasured) {
    console.error(
      `bench: nothing was measured, so no results were written.\n${problems.map((problem) => `  - ${problem}`).join("\n")}`,
    );
    return 1;
  }

  const budgetFailures = SCENARIOS.flatMap((scenario) =>
    measurements
      .get(scenario.name)!
      .filter((measurement) => measurement.result !== undefined && scenario.failsBudget?.(measurement.result))
      .map((measurement) => `${scenario.title} (${measurement.databaseLabel})`),
  );

  const targetsMissed = SCENARIOS.flatMap((scenario) => [
    ...measurements
      .get(scenario.name)!
      .flatMap((measurement) =>
        measurement.result !== undefined
          ? (scenario.missedTargets?.(measurement.result, measurement.databaseLabel) ?? [])
          : [],
      ),
    ...(scenario.missedTargetsAcross?.(measurements.get(scenario.name)!, measurements) ?? []),
  ]);

  const totalS = Math.round((performance.now() - startedAt) / 100) / 10;
  const nodeOptions = serverNodeOptions().NODE_OPTIONS;
  const json = {
    schema: 1,
    date: date.toISOString(),
    commit,
    machine: {
      ...machine,
      cpuBusyPercentAtStart: cpuBusyAtStart,
      loadAverageAtEnd: os.loadavg().map((value) => Math.round(value * 100) / 100),
    },
    settings: {
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      connections: settings.connections,
      rounds: settings.rounds,
      only: settings.only ?? null,
      soakS: settings.soakS,
      soakShoppers: settings.soakShoppers,
      postgres: settings.postgres,
      postgresServer: servers.some((server) => server.database === "postgres")
        ? redactUrl(settings.postgresAdminUrl)
        : null,
      serverNodeOptions: nodeOptions ?? null,
    },
    build,
    servers,
    notes: postgresNote ? [postgresNote] : [],
    warnings,
    problems,
    budgetFailures,
    targetsMissed,
    runSeconds: totalS,
    scenarios: Object.fromEntries(
      SCENARIOS.map((scenario) => [
        scenario.name,
        { title: scenario.title, measurements: measurements.get(scenario.name) },
      ]),
    ),
  };
  const markdown = renderMarkdown({
    date,
    commit,
    machine,
    cpuBusyAtStart,
    settings,
    build,
    servers,
    serverNodeOptions: nodeOptions,
    postgresNote,
    warnings,
    problems,
    budgetFailures,
    targetsMissed,
    measurements,
  });
  const resultsDir = resultsDirOf(settings);
  const paths = writeResults(resultsDir, json, markdown);
  const historyPath = appendHistory(resultsDir, json);
  process.stdout.write(`${markdown}\n`);
  log(`wrote ${paths.jsonPath}, ${paths.markdownPath} and a row of ${historyPath} (${totalS} s in all)`);
  if (problems.length > 0) return 1;
  return budgetFailures.length > 0 ? 2 : 0;
}

function renderMarkdown(run: {
  date: Date;
  commit: string;
  machine: ReturnType<typeof describeMachine>;
  cpuBusyAtStart?: number;
  settings: Settings;
  build?: BuildInfo;
  servers: ServerRecord[];
  serverNodeOptions?: string;
  postgresNote: string;
  warnings: string[];
  problems: string[];
  budgetFailures: string[];
  targetsMissed: string[];
  measurements: Map<string, Measurement[]>;
}): string {
  const { machine } = run;
  const lines = [
    `# Storefront benchmark: ${run.date.toISOString().slice(0, 10)}, commit ${run.commit}`,
    "",
    `- Date: ${run.date.toISOString().replace("T", " ").slice(0, 19)} UTC`,
    `- Commit: \`${run.commit}\`` +
      (run.build?.stale
        ? ` (**warning**: the build is older than \`${run.build.newerSource}\`; figures may not match this source)`
        : ""),
    `- Machine: ${machine.os} ${machine.arch}, ${machine.cpuModel}, ${machine.cores} cores, ${machine.totalMemoryGiB} GiB, Node ${machine.node}` +
      ` (before the run: CPU ${run.cpuBusyAtStart ?? "?"}% busy, load average ${machine.loadAverageAtStart.join(" / ")})`,
    `- Servers: ${run.servers.map((server) => `${server.label}${server.startupS !== undefined ? ` (ready in ${server.startupS} s)` : ""}`).join("; ")}` +
      (run.serverNodeOptions ? `; NODE_OPTIONS=${run.serverNodeOptions} (BENCH_SERVER_NODE_OPTIONS)` : "") +
      (run.postgresNote ? `. ${run.postgresNote}` : ""),
    "- Load generator (autocannon) and server share the same machine.",
  ];
  for (const warning of run.warnings) lines.push(`- **Warning:** ${warning}`);
  if (run.settings.only)
    lines.push(
      `- Only: ${SCENARIOS.map((scenario) => scenario.name).join(", ")} (BENCH_ONLY); the other scenarios did not run.`,
    );
  if (run.budgetFailures.length > 0) lines.push(`- **Over budget:** ${run.budgetFailures.join(", ")}`);
  if (run.targetsMissed.length > 0)
    lines.push(`- **Targets missed** (${run.targetsMissed.length}): ${run.targetsMissed.join("; ")}`);
  // First lines only: the JSON keeps the whole messages (with the server's log tail).
  if (run.problems.length > 0)
    lines.push(`- **Problems:** ${run.problems.map((problem) => problem.split("\n")[0]).join("; ")}`);
  for (const scenario of SCENARIOS) {
    lines.push(
      "",
      `## ${scenario.title}`,
      "",
      scenario.render(run.measurements.get(scenario.name)!, run.settings, run.measurements),
    );
  }
  lines.push("", "See bench/README.md for what each figure means and how noisy it is.");
  return lines.join("\n");
}

process.exitCode = await main();
// Should anything (a socket, a timer in a dependency) keep the event loop alive, leave anyway.
setTimeout(() => process.exit(), 5_000).unref();
