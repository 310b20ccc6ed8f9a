import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { deferCleanup, isShuttingDown, onExitSyncCleanup } from "./cleanup.ts";

export type DatabaseKind = "pglite" | "postgres";

export type DatabaseChoice = { kind: "pglite" } | { kind: "postgres"; url: string; name: string };

/** A program of this repository running as the bench's child process (the shop, or the processor on its own). */
export interface ChildServer {
  /** http://127.0.0.1:<port>, never "localhost", so that no IPv6 lookup gets in the way. */
  baseUrl: string;
  port: number;
  pid: number;
  /** Everything the process wrote on stdout and stderr (one JSON object a line). */
  logPath: string;
  /** Seconds from spawn to ready (for the shop: a healthy /healthz, migrations and catalogue seed included). */
  startupS: number;
  /**
   * Log lines at level error (50) or above so far, and the first few of them: a sane run has none. With `skip`, the
   * first few after the first `skip` such lines (to see only what a scenario caused); `count` is still all of them.
   */
  errorLog(skip?: number): { count: number; first: string[] };
  /** SIGTERM, then SIGKILL after the server's own drain timeout; removes the temporary DATA_DIR. Idempotent. */
  stop(): Promise<StopInfo>;
}

export interface RunningServer extends ChildServer {
  /** "pglite" or "postgres": what /healthz reports. */
  database: DatabaseKind;
  /** For reports: "PGlite (embedded)" or "PostgreSQL (bench_...)". */
  label: string;
  /** PostgreSQL only: the URL of the server's (temporary) database, for scenarios that seed it directly. */
  databaseUrl?: string;
}

export interface StopInfo {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Exited on its own after SIGTERM (rather than being killed). */
  graceful: boolean;
  /**
   * Set when the server had already exited before it was asked to stop (it crashed, or something else signalled it):
   * when, and the last lines of its log, which would otherwise be deleted with its directory.
   */
  exitedEarly?: { at: string; logTail: string };
}

/** The server drains in-flight requests for up to 10 s after SIGTERM; give it a little longer before SIGKILL. */
const STOP_GRACE_MS = 15_000;

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error("could not find a free port"))));
    });
  });
}

/** Keys the shop and a processor run as its own process are both given, as an operator would. */
export interface ProcessorKeys {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
}

/** Made-up test keys for one run (the processor accepts sk_test_/pk_test_/whsec_ and 8 or more letters or digits). */
export function makeProcessorKeys(): ProcessorKeys {
  const random = () => randomBytes(12).toString("hex");
  return {
    secretKey: `sk_test_bench${random()}`,
    publishableKey: `pk_test_bench${random()}`,
    webhookSecret: `whsec_bench${random()}`,
  };
}

/** The three variables that carry the keys, for the shop and the processor alike. */
export function processorKeysEnv(keys: ProcessorKeys): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: keys.secretKey,
    STRIPE_PUBLISHABLE_KEY: keys.publishableKey,
    STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
  };
}

/**
 * Starts the production server (`node scripts/start.js`) as a child process, bound to 127.0.0.1, on `port` (default:
 * a free one), with a fresh temporary DATA_DIR and, for PostgreSQL, the given DATABASE_URL; `env` adds or overrides
 * variables (e.g. PROCESSOR_URL and the keys). Resolves once the server has logged that it is ready on that port and
 * its /healthz answers 200 for the expected database kind.
 */
export async function startShopServer(
  root: string,
  database: DatabaseChoice,
  {
    startTimeoutMs = 60_000,
    port,
    env = {},
  }: { startTimeoutMs?: number; port?: number; env?: Record<string, string> } = {},
): Promise<RunningServer> {
  // scripts/start.js builds when no build is present: never let it, as that would race with whoever removed the build.
  if (!existsSync(path.join(root, "build/server/index.js"))) {
    throw new Error("build/server/index.js has disappeared (is someone rebuilding?); not starting a server");
  }
  const label = database.kind === "pglite" ? "PGlite (embedded)" : `PostgreSQL (${database.name})`;
  const child = await startChildServer({
    root,
    label,
    script: "scripts/start.js",
    port,
    startTimeoutMs,
    env: (listenPort, dataDir) => ({
      NODE_ENV: "production",
      PORT: String(listenPort),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      // An empty DATABASE_URL means "not set" to the server: PGlite in DATA_DIR.
      DATABASE_URL: database.kind === "postgres" ? database.url : "",
      // The bench pays with test cards through the built-in processor, on PostgreSQL too.
      ALLOW_TEST_PAYMENTS: "true",
      LOG_LEVEL: serverLogLevel(),
      ...serverNodeOptions(),
      // Every simulated shopper comes from 127.0.0.1: the per-address limit on new guest sessions would refuse them.
      NEW_SESSIONS_PER_IP: "1000000",
      PAYMENT_ATTEMPTS_PER_IP: "1000000",
      ...env,
    }),
    // Our own child's ready line, for our port: a stray server already on the port cannot fool the check.
    isReady: async (log, baseUrl, listenPort) => {
      if (log.includes("No build found"))
        throw new Error("the server found no build and started building (is someone rebuilding?)");
      return (
        log.includes(`Storefront is ready at http://localhost:${listenPort}`) && (await healthy(baseUrl, database.kind))
      );
    },
  });
  return {
    ...child,
    database: database.kind,
    label,
    ...(database.kind === "postgres" ? { databaseUrl: database.url } : {}),
  };
}

/**
 * Starts the built-in test processor as its own process (`npm run processor`, i.e. its src/main.ts) on `port`
 * (default: a free one) of 127.0.0.1, with the given keys, sending its webhooks to `webhookUrl`; over PGlite in its
 * own temporary DATA_DIR, or over the PostgreSQL database `databaseUrl`. Resolves once it has logged that it is ready
 * on that port.
 */
export async function startProcessorServer(
  root: string,
  {
    keys,
    webhookUrl,
    databaseUrl,
    port,
    startTimeoutMs = 60_000,
  }: { keys: ProcessorKeys; webhookUrl: string; databaseUrl?: string; port?: number; startTimeoutMs?: number },
): Promise<ChildServer> {
  return startChildServer({
    root,
    label: "processor",
    script: "packages/stripe-test-processor/src/main.ts",
    port,
    startTimeoutMs,
    env: (listenPort, dataDir) => ({
      PORT: String(listenPort),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      WEBHOOK_URL: webhookUrl,
      ...processorKeysEnv(keys),
      // Its ready line is logged at info; it knows no "trace".
      LOG_LEVEL: "info",
    }),
    isReady: async (log, baseUrl) => log.includes(`Stripe test processor is ready at ${baseUrl}`),
  });
}

/**
 * Starts the floor (bench/floor/server.ts): the same React Router build rendering the home page from constant data,
 * with nothing of the shop around it. Resolves once it has logged that it is ready on its port.
 */
export async function startFloorServer(
  root: string,
  { startTimeoutMs = 30_000 }: { startTimeoutMs?: number } = {},
): Promise<ChildServer> {
  return startChildServer({
    root,
    label: "floor",
    script: "bench/floor/server.ts",
    startTimeoutMs,
    env: (listenPort) => ({ NODE_ENV: "production", PORT: String(listenPort) }),
    isReady: async (log, _baseUrl, listenPort) => log.includes(`Floor is ready at http://127.0.0.1:${listenPort}`),
  });
}

/**
 * A Node program of this repository as a child process in its own temporary directory (its DATA_DIR and its log
 * file), in its own process group, stopped with the bench's clean-up. Resolves once `isReady` says so.
 */
async function startChildServer(options: {
  root: string;
  label: string;
  /** Relative to `root`. */
  script: string;
  port?: number;
  startTimeoutMs: number;
  env(port: number, dataDir: string): Record<string, string>;
  isReady(log: string, baseUrl: string, port: number): Promise<boolean>;
}): Promise<ChildServer> {
  const { root, label, startTimeoutMs } = options;
  if (isShuttingDown()) throw new Error("the bench is shutting down");
  const workDir = mkdtempSync(path.join(tmpdir(), "storefront-bench-"));
  const dataDir = path.join(workDir, "data");
  const logPath = path.join(workDir, "server.log");
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;

  // Logs go to a file, not a pipe: the bench process then spends no CPU draining them while it generates load.
  const logFd = openSync(logPath, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [path.join(root, options.script)], {
      cwd: root,
      env: { ...process.env, ...options.env(port, dataDir) },
      stdio: ["ignore", logFd, logFd],
      // Its own process group, so that stopping it also stops anything it started (see `signal` below).
      detached: true,
    });
  } finally {
    closeSync(logFd);
  }
  const started = performance.now();

  let exited: StopInfo | undefined;
  const exitPromise = new Promise<StopInfo>((resolve) => {
    child.once("exit", (exitCode, signal) => {
      exited = {
        exitCode,
        signal,
        graceful: false,
        exitedEarly: stopping ? undefined : { at: new Date().toISOString(), logTail: logTail(logPath, 40) },
      };
      resolve(exited);
    });
    child.once("error", () => {
      exited ??= { exitCode: null, signal: null, graceful: false };
      resolve(exited);
    });
  });
  /** Signals the server's whole process group (the server and any child of its own), by its id. */
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, name);
    } catch {
      child.kill(name);
    }
  };
  const unregisterExitKill = onExitSyncCleanup(() => {
    if (!exited) signal("SIGKILL");
  });

  let stopping: Promise<StopInfo> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      let info: StopInfo;
      if (exited) info = exited;
      else {
        signal("SIGTERM");
        const grace = new AbortController();
        const outcome = await Promise.race([
          exitPromise,
          sleep(STOP_GRACE_MS, undefined, { signal: grace.signal }).catch(() => undefined),
        ]);
        grace.abort(); // Or the pending timer would keep the bench alive for the rest of the grace period.
        if (outcome) info = { ...outcome, graceful: true };
        else {
          signal("SIGKILL");
          info = { ...(await exitPromise), graceful: false };
        }
      }
      unregisterExitKill();
      rmSync(workDir, { recursive: true, force: true });
      return info;
    })());
  const stopNow = deferCleanup(`stop ${label} server (pid ${child.pid})`, () => stop().then(() => undefined));

  try {
    const deadline = started + startTimeoutMs;
    for (;;) {
      if (exited)
        throw new Error(`the server exited (${exited.signal ?? `code ${exited.exitCode}`}) before it was ready`);
      if (performance.now() > deadline) throw new Error(`the server was not healthy within ${startTimeoutMs / 1000} s`);
      if (await options.isReady(readLog(logPath), baseUrl, port)) break;
      await sleep(200);
    }
  } catch (error) {
    const tail = logTail(logPath, 30);
    await stopNow();
    throw new Error(
      `${label}: ${error instanceof Error ? error.message : error}\n--- last lines of the server log ---\n${tail}`,
    );
  }

  return {
    baseUrl,
    port,
    pid: child.pid ?? -1,
    logPath,
    startupS: (performance.now() - started) / 1000,
    errorLog: (skip = 0) => errorLines(readLog(logPath), 5, skip),
    stop: async () => {
      const info = await stop();
      await stopNow();
      return info;
    },
  };
}

async function healthy(baseUrl: string, kind: DatabaseKind): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
    if (response.status !== 200) return false;
    const body = (await response.json()) as { status?: string; database?: string };
    if (body.database !== undefined && body.database !== kind) {
      throw new Error(`/healthz reports database "${body.database}", expected "${kind}"`);
    }
    return true;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("/healthz reports")) throw error;
    return false;
  }
}

function readLog(logPath: string): string {
  try {
    return readFileSync(logPath, "utf8");
  } catch {
    return "";
  }
}

export function logTail(logPath: string, lines: number): string {
  return readLog(logPath).trimEnd().split("\n").slice(-lines).join("\n");
}

function errorLines(log: string, keep = 5, skip = 0): { count: number; first: string[] } {
  const found: string[] = [];
  for (const line of log.split("\n")) {
    const match = /^\{"level":(\d+)/.exec(line);
    // Error-level JSON lines, and anything unstructured that mentions an error (an uncaught exception's message).
    if ((match && Number(match[1]) >= 50) || (!match && /\b(Error|error)\b/.test(line))) found.push(line);
  }
  return {
    count: found.length,
    first: found.slice(skip, skip + keep).map((line) => (line.length > 2_000 ? `${line.slice(0, 2_000)}…` : line)),
  };
}

/** BENCH_SERVER_NODE_OPTIONS: Node's options for the shop's servers (a heap cap, say), as an operator would set NODE_OPTIONS. */
export function serverNodeOptions(): { NODE_OPTIONS: string } | Record<string, never> {
  const options = process.env.BENCH_SERVER_NODE_OPTIONS?.trim();
  return options ? { NODE_OPTIONS: options } : {};
}

/** BENCH_SERVER_LOG_LEVEL: info or more detailed, since the bench waits for the server's ready line (logged at info). */
function serverLogLevel(): string {
  const level = process.env.BENCH_SERVER_LOG_LEVEL?.trim() || "info";
  if (!["info", "debug", "trace"].includes(level)) {
    throw new Error(
      `BENCH_SERVER_LOG_LEVEL must be info, debug or trace (the bench waits for the server's ready line, logged at info), got "${level}"`,
    );
  }
  return level;
}
