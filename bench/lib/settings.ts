import { fileURLToPath } from "node:url";

/** The project root (/work/main), whatever the current directory. */
export const projectRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The PostgreSQL server tried when BENCH_DATABASE_URL is not set. */
export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

export interface Settings {
  /** Seconds of measured load per endpoint and round (BENCH_DURATION_S, default 10). */
  durationS: number;
  /** Seconds of unmeasured load before each measurement (BENCH_WARMUP_S, default 3). */
  warmupS: number;
  /** Concurrent keep-alive connections (BENCH_CONNECTIONS, default 10). */
  connections: number;
  /** Times the endpoints of one database are measured back to back; figures are medians over rounds (BENCH_ROUNDS, default 1). */
  rounds: number;
  /** PostgreSQL: "auto" (if the server answers), "on" (required) or "off" (BENCH_POSTGRES=auto|1|0). */
  postgres: "auto" | "on" | "off";
  /** A PostgreSQL URL whose server hosts the bench's own temporary database (BENCH_DATABASE_URL). */
  postgresAdminUrl: string;
  /** Whether BENCH_DATABASE_URL was given (then PostgreSQL is required). */
  postgresExplicit: boolean;
  /** Rebuild even when a build exists (BENCH_BUILD=1). */
  forceBuild: boolean;
  /** Where results go (BENCH_RESULTS_DIR); unset: bench/results, or bench/results/<scenario>/ for one scenario alone (run.ts). */
  resultsDir?: string;
  /** Hard limit on the whole run, after which servers are stopped and the run fails (BENCH_TIMEOUT_S). */
  timeoutS: number;
  /** Seconds a server may take from spawn to a healthy /healthz (BENCH_START_TIMEOUT_S, default 60). */
  startTimeoutS: number;
  /** Names of the scenarios to run (BENCH_ONLY=pages,growth), as given; undefined: all of them. run.ts checks them. */
  only?: string[];
  /** Seconds of the soak (BENCH_SOAK_S, default 60). */
  soakS: number;
  /**
   * Seconds the soak's shoppers run before it measures (BENCH_SOAK_WARMUP_S, default 10): their arrivals spread out
   * and the server's code is optimised, as in a shop that has been open a while. 0 measures from the first request.
   */
  soakWarmupS: number;
  /** Simulated shoppers in the soak (BENCH_SOAK_SHOPPERS, default 200). */
  soakShoppers: number;
  /** Lighthouse runs per page; the median run is reported (BENCH_LIGHTHOUSE_RUNS, default 3). */
  lighthouseRuns: number;
  /** Where to also save Lighthouse's full reports, HTML and JSON, one pair per page (BENCH_LIGHTHOUSE_DIR; default: not saved). */
  lighthouseReportsDir?: string;
}

/** What the default time limit is made of: the settings, and the seconds of load the selected scenarios plan. */
export type PlannedLoadSeconds = (settings: Omit<Settings, "timeoutS">) => number;

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, { integer = false } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  }
  return value;
}

function nonNegativeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

/**
 * The settings from BENCH_* variables. `plannedLoadSeconds` sizes the default time limit: 600 s (builds, start-ups,
 * set-up) plus 1.5 × the load the selected scenarios plan on the databases they will run on.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env, plannedLoadSeconds?: PlannedLoadSeconds): Settings {
  const durationS = positiveNumber(env, "BENCH_DURATION_S", 10, { integer: true });
  const warmupS = nonNegativeNumber(env, "BENCH_WARMUP_S", Math.min(3, durationS));
  const connections = positiveNumber(env, "BENCH_CONNECTIONS", 10, { integer: true });
  const rounds = positiveNumber(env, "BENCH_ROUNDS", 1, { integer: true });

  const explicitUrl = env.BENCH_DATABASE_URL?.trim() || undefined;
  if (explicitUrl && !/^postgres(ql)?:\/\//.test(explicitUrl)) {
    throw new Error("BENCH_DATABASE_URL must be a postgres:// or postgresql:// URL");
  }
  const postgresFlag = (env.BENCH_POSTGRES ?? "").trim().toLowerCase();
  let postgres: Settings["postgres"];
  if (postgresFlag === "0" || postgresFlag === "off" || postgresFlag === "false") postgres = "off";
  else if (postgresFlag === "1" || postgresFlag === "on" || postgresFlag === "true" || explicitUrl) postgres = "on";
  else if (postgresFlag === "" || postgresFlag === "auto") postgres = "auto";
  else throw new Error(`BENCH_POSTGRES must be auto, 1 or 0, got "${env.BENCH_POSTGRES}"`);

  const only = env.BENCH_ONLY?.trim()
    ? env.BENCH_ONLY.split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "")
    : undefined;

  const settings: Omit<Settings, "timeoutS"> = {
    durationS,
    warmupS,
    connections,
    rounds,
    postgres,
    postgresAdminUrl: explicitUrl ?? DEFAULT_POSTGRES_URL,
    postgresExplicit: explicitUrl !== undefined,
    forceBuild: env.BENCH_BUILD === "1",
    resultsDir: env.BENCH_RESULTS_DIR?.trim() || undefined,
    startTimeoutS: positiveNumber(env, "BENCH_START_TIMEOUT_S", 60),
    only,
    soakS: positiveNumber(env, "BENCH_SOAK_S", 60, { integer: true }),
    soakWarmupS: nonNegativeNumber(env, "BENCH_SOAK_WARMUP_S", 10),
    soakShoppers: positiveNumber(env, "BENCH_SOAK_SHOPPERS", 200, { integer: true }),
    lighthouseRuns: positiveNumber(env, "BENCH_LIGHTHOUSE_RUNS", 3, { integer: true }),
    lighthouseReportsDir: env.BENCH_LIGHTHOUSE_DIR?.trim() || undefined,
  };
  const loadSeconds = plannedLoadSeconds?.(settings) ?? 0;
  return { ...settings, timeoutS: positiveNumber(env, "BENCH_TIMEOUT_S", Math.ceil(600 + loadSeconds * 1.5)) };
}
