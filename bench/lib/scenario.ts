import type { DatabaseKind, RunningServer } from "./server.ts";
import type { Settings } from "./settings.ts";

/**
 * One benchmark. To add one (basket add/remove, checkout...), write bench/scenarios/<name>.ts exporting a Scenario
 * and list it in bench/run.ts. A scenario gets a running, healthy server and must leave it usable for the next one
 * (and should use its own shoppers/sessions rather than rely on state left by another scenario).
 */
export interface Scenario<Result = unknown> {
  /** Key in the results JSON, e.g. "throughput". */
  name: string;
  /** Heading in the report, e.g. "Server throughput". */
  title: string;
  /**
   * "once": measured against the first server only, because it depends on the build and not on the database
   * (page weight). "each-database": measured against every server (PGlite, then PostgreSQL when available).
   */
  scope: "once" | "each-database";
  /**
   * The databases it may run on (default: both). A "once" scenario restricted to one runs on that server; a
   * scenario whose database is not available this run is recorded as not measured, with the reason.
   */
  databases?: DatabaseKind[];
  /**
   * Seconds of load it plans per database it runs on (warm-ups included), for the default time limit of the run
   * (BENCH_TIMEOUT_S). Set-up (seeding, Lighthouse's own work) is covered by estimates or the run's 600 s margin.
   */
  plannedSeconds(settings: Omit<Settings, "timeoutS">): number;
  run(context: ScenarioContext): Promise<Result>;
  /**
   * The report section (Markdown, without its heading) for every measurement this run made; `allMeasurements` (by
   * scenario name) lets a section compare itself with another scenario's figures from the same run.
   */
  render(
    measurements: Measurement<Result>[],
    settings: Settings,
    allMeasurements?: ReadonlyMap<string, Measurement[]>,
  ): string;
  /** Whether a measurement breaks a budget the project has set (a failed budget makes the run exit with code 2). */
  failsBudget?(result: Result): boolean;
  /**
   * Targets the team aims for that this measurement misses, one short line each (e.g. "/login: accessibility 92 <
   * 100"). Listed at the top of the report; unlike budgets they do not change the exit code (they are noisy).
   */
  missedTargets?(result: Result, databaseLabel: string): string[];
  /**
   * Targets that compare this scenario's measurements with each other (PGlite's figure against PostgreSQL's);
   * `allMeasurements` as for `render`.
   */
  missedTargetsAcross?(
    measurements: Measurement<Result>[],
    allMeasurements?: ReadonlyMap<string, Measurement[]>,
  ): string[];
}

export interface ScenarioContext {
  server: RunningServer;
  settings: Settings;
  /** Progress messages go to stderr, so that stdout holds only the final table. */
  log(message: string): void;
}

export interface Measurement<Result = unknown> {
  /** "pglite" or "postgres". */
  database: string;
  databaseLabel: string;
  result?: Result;
  /** Set instead of `result` when the scenario threw. */
  error?: string;
}
