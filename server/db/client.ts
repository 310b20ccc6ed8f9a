import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";

export type DB = Kysely<Database>;

export type DatabaseTarget =
  /** A PostgreSQL server. `schema` isolates a test run; production uses the default (public). */
  | { kind: "postgres"; url: string; schema?: string; poolSize?: number }
  /** Embedded PGlite: a data directory on disk, in memory when omitted, or loaded from a dump. */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export interface DatabaseHandle {
  db: DB;
  kind: DatabaseTarget["kind"];
  close(): Promise<void>;
}

/** Opens the database the configuration names: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.kind === "postgres") {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize ?? 10,
      // A query may not hold a connection forever; the shopper gets an error instead of a hang.
      statement_timeout: 10_000,
      connectionTimeoutMillis: 5_000,
      ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
    });
    // A connection lost with its server (a restart, an outage) must not crash the process: the pool replaces idle
    // clients, and a checked-out client's failure reaches its query as a rejected promise. Without these listeners
    // node-postgres re-emits the loss as an uncaught 'error' event.
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  if (target.dataDir) mkdirSync(target.dataDir, { recursive: true });
  return wrapPglite(new PGlite({ dataDir: target.dataDir, loadDataDir: target.loadDataDir }));
}

/** Puts Kysely in front of a PGlite instance; closing the handle closes the instance. */
export function wrapPglite(pglite: PGlite): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: "pglite",
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
