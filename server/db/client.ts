// Opening the database: PGlite in DATA_DIR or PostgreSQL at DATABASE_URL behind one Kysely handle, with the query
// observer that feeds metrics and budgets.

import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import {
  Kysely,
  PostgresDialect,
  type KyselyPlugin,
  type LogEvent,
  type PostgresPool,
  type PostgresPoolClient,
  type Transaction,
} from "kysely";
import pg from "pg";
import { isConnectionLost, isQueryReadTimeout, markAsConnectFailure } from "./database-errors";
import { currentRank, OldestFirstQueue, YIELD_AFTER_MS } from "./oldest-first-queue";
import { ShopPGliteDialect } from "./pglite-dialect";
import type { Database } from "./schema";

export type DB = Kysely<Database>;
/** A transaction or the database itself: whatever writes a fact also writes what follows from it (an e-mail). */
export type Writer = Transaction<Database> | DB;

/** The longest a statement may run on the server; the shop's queries take milliseconds (p99 under 0.5 s under load). */
const STATEMENT_TIMEOUT_MS = 5_000;
/** The longest the client waits for any answer to a query: the server's own timeout, plus a margin to deliver it. */
const QUERY_READ_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1_000;
const CONNECT_TIMEOUT_MS = 3_000;
/** Start-up's migrations may wait for another instance's and build indexes on large tables. */
const STARTUP_STATEMENT_TIMEOUT_MS = 10 * 60_000;
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

export type DatabaseTarget =
  /** A PostgreSQL server. `schema` isolates a test run; production uses the default (public). */
  | {
      kind: "postgres";
      url: string;
      schema?: string;
      poolSize?: number;
      /** DATABASE_MIGRATION_URL: a direct connection for start-up's migrations, where `url` names a pooler. */
      migrationUrl?: string;
    }
  /** Embedded PGlite: a data directory on disk, in memory when omitted, or loaded from a dump. */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export interface DatabaseHandle {
  db: DB;
  kind: DatabaseTarget["kind"];
  close(): Promise<void>;
  /**
   * Calls `observer` after every statement with its duration (for /metrics); returns a function that stops it. With
   * `withAskedAt` it is told when each statement was asked for (tests of round trips; a little work per statement).
   */
  observeQueries(observer: QueryObserver, options?: { withAskedAt?: boolean }): () => void;
  /** The pool's connections now (open, idle, and statements waiting for one); PGlite's one connection counts as a pool of one. */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * PostgreSQL: one connection for start-up's migrations and seeding, without the shopper-facing timeouts (a wait
   * for another instance's migrations, or a long index build, is not a stuck query). Closed by the caller.
   */
  openForStartup?(): { db: DB; close(): Promise<void> };
}

/**
 * After each statement: how long it took (from being sent to its answer), whether it failed, its SQL, and when the
 * code asked for it (performance.now(); before any wait for a connection) when the observer asked to know, where
 * Kysely built it (not BEGIN, COMMIT or a statement compiled ahead, such as the session lookup).
 */
export type QueryObserver = (milliseconds: number, isError: boolean, sql: string, askedAt?: number) => void;

/**
 * Kysely's query log, handed to whoever observes this database; nothing is measured beyond what Kysely already does,
 * but for when each statement was asked for, noted by a plugin only while someone observes.
 */
function queryObservers() {
  const observers = new Set<QueryObserver>();
  const askedAt = new Map<string, number>();
  let askers = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (askers > 0) askedAt.set(queryId.queryId, performance.now());
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return {
    plugin,
    log: (event: LogEvent) => {
      const asked = askedAt.get(event.query.queryId.queryId);
      if (asked !== undefined) askedAt.delete(event.query.queryId.queryId);
      for (const observer of observers)
        observer(event.queryDurationMillis, event.level === "error", event.query.sql, asked);
    },
    observeQueries(observer: QueryObserver, { withAskedAt = false } = {}) {
      observers.add(observer);
      if (withAskedAt) askers += 1;
      return () => {
        if (!observers.delete(observer) || !withAskedAt) return;
        askers -= 1;
        if (askers === 0) askedAt.clear();
      };
    },
  };
}

/** Opens the database the configuration names: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.kind === "postgres") {
    const poolSize = target.poolSize ?? 10;
    const pool = new pg.Pool({
      connectionString: target.url,
      max: poolSize,
      // Every wait on the database is bounded, so that a request fails (503, try again) within seconds instead of
      // hanging while it holds a pooled connection. The server cancels a slow statement after STATEMENT_TIMEOUT_MS;
      // the client gives up a little later on a link that answers nothing at all (a paused server, a partition).
      statement_timeout: STATEMENT_TIMEOUT_MS,
      query_timeout: QUERY_READ_TIMEOUT_MS,
      // Both opening a connection and waiting for a free one in the pool.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A connection whose peer vanished without closing it is found by the kernel's probes and dropped.
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
      // No JIT: PostgreSQL compiles a statement whose estimated cost passes jit_above_cost, and for the shop's short
      // statements the compiling costs more than it saves (a department listing over 100,000 products: 87 ms with it,
      // 35 ms without; BENCH_ONLY=departmentListing npm run bench). Through PgBouncer, which drops start-up options,
      // the role carries it instead (deploy/pgbouncer.ini). public stays on the path after a test's schema:
      // extensions (pg_trgm) live there, once per database.
      options: ["-c jit=off", ...(target.schema ? [`-c search_path=${target.schema},public`] : [])].join(" "),
    });
    // A connection lost with its server (a restart, an outage) must not crash the process: the pool replaces idle
    // clients, and a checked-out client's failure reaches its query as a rejected promise. Without these listeners
    // node-postgres re-emits the loss as an uncaught 'error' event.
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    const { log, observeQueries, plugin } = queryObservers();
    const turns = new OldestFirstQueue({ permits: poolSize, yieldAfterMs: YIELD_AFTER_MS });
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: boundedPool(pool, turns) }),
      log,
      plugins: [plugin],
    });
    return {
      db,
      kind: "postgres",
      close: () => db.destroy(),
      observeQueries,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount + turns.waiting }),
      openForStartup() {
        const startupPool = new pg.Pool({
          connectionString: target.migrationUrl ?? target.url,
          max: 1,
          connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
          statement_timeout: STARTUP_STATEMENT_TIMEOUT_MS,
          keepAlive: true,
          keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
          ...(target.schema ? { options: `-c search_path=${target.schema},public` } : {}),
        });
        startupPool.on("error", () => {});
        const startupDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: startupPool }) });
        return { db: startupDb, close: () => startupDb.destroy() };
      },
    };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  return wrapPglite(createPglite({ dataDir: target.dataDir, loadDataDir: target.loadDataDir }));
}

/** PGlite with the extensions the migrations create (pg_trgm: the catalogue search's typo tolerance). */
export function createPglite(options: { dataDir?: string; loadDataDir?: Blob } = {}): PGlite {
  return new PGlite({ ...options, extensions: { pg_trgm } });
}

/**
 * The pool as Kysely uses it, with four rules node-postgres leaves to its caller:
 * - connections go to the oldest request waiting, the built-in processor's answers first (oldest-first-queue.ts),
 *   within the same bound on the wait as the pool's own;
 * - a failure to get a connection, whatever the server or the network said, is a database that cannot be reached
 *   (marked for isDatabaseUnavailable: a 503 with Retry-After, never a 500);
 * - a connection whose query got no answer in time is closed at once. Its query is still outstanding on the wire, so
 *   anything sent after it (a transaction's ROLLBACK, the next request's query) would queue behind it and wait out
 *   another timeout; closed, it fails at once and the pool opens a fresh one;
 * - a connection found broken when a statement is sent on it (its server went away while it sat in the pool: a
 *   failover, a restart) is dropped from the pool, and the statement is sent once more on a fresh connection only
 *   when that cannot apply anything twice: a plain read outside a transaction (isSafeToRetry). A write, or anything
 *   in a transaction, fails as it is (503, "nothing was changed; try again"): the shop's writes that a shopper or a
 *   webhook may repeat are idempotent by their own keys (an order per payment intent), not by a retry here.
 */
function boundedPool(pool: pg.Pool, turns: OldestFirstQueue): PostgresPool {
  return {
    options: pool.options,
    end: () => pool.end(),
    async connect() {
      await turns.acquire(currentRank(), CONNECT_TIMEOUT_MS).catch((error: unknown) => {
        throw markAsConnectFailure(error);
      });
      let client = await pool.connect().catch((error: unknown) => {
        turns.release();
        throw markAsConnectFailure(error);
      });
      let isReleased = false;
      let hasClient = true;
      let inTransaction = false;
      const send = (args: unknown[]) => (client.query as (...args: unknown[]) => unknown)(...args);
      return {
        release: (destroy?: boolean) => {
          if (isReleased) return;
          isReleased = true;
          if (hasClient) client.release(destroy);
          turns.release();
        },
        query: ((...args: unknown[]) => {
          const text = typeof args[0] === "string" ? args[0] : "";
          if (/^\s*begin\b/i.test(text)) inTransaction = true;
          else if (/^\s*(commit|rollback)\b/i.test(text)) inTransaction = false;
          const wasInTransaction = inTransaction;
          const result = send(args);
          if (!(result instanceof Promise)) return result;
          return result.catch(async (error: unknown) => {
            if (isQueryReadTimeout(error)) client.connection.stream.destroy();
            if (!isConnectionLost(error) || wasInTransaction || !isSafeToRetry(text)) throw error;
            // The broken connection leaves the pool for good (its place with it); the read goes once more, on a new one.
            client.release(true);
            hasClient = false;
            client = await pool.connect().catch((connectError: unknown) => {
              throw markAsConnectFailure(connectError);
            });
            hasClient = true;
            return send(args);
          });
        }) as PostgresPoolClient["query"],
      };
    },
  };
}

/** A statement that reads and changes nothing, so that sending it again cannot apply anything twice. */
export function isSafeToRetry(text: string): boolean {
  return (
    /^\s*select\b/i.test(text) &&
    !/\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i.test(text) &&
    !/\b(nextval|setval|set_config|pg_(try_)?advisory\w*)\s*\(/i.test(text)
  );
}

/** Puts Kysely in front of a PGlite instance; closing the handle closes the instance. */
export function wrapPglite(pglite: PGlite): DatabaseHandle {
  const { log, observeQueries } = queryObservers();
  const dialect = new ShopPGliteDialect(pglite);
  const db = new Kysely<Database>({ dialect, log });
  return {
    db,
    kind: "pglite",
    observeQueries,
    poolStats: () => dialect.connectionStats(),
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
