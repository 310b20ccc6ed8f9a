import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import type { DB } from "./client";

/**
 * How long start-up may wait for another instance's migrations and seeding. The wait is a series of short tries, so
 * that no statement blocks for long even where start-up runs on the shop's pool (the tests' databases), whose
 * 5-second timeouts are meant for a shopper's queries; the shop itself prepares on a connection without them
 * (DatabaseHandle.openForStartup).
 */
const STARTUP_LOCK_WAIT_MS = 10 * 60_000;
const STARTUP_LOCK_RETRY_MS = 100;

/**
 * Runs `work` (migrations and seeding) on one connection holding a session-level advisory lock keyed by the schema:
 * instances started together on one database take turns, so each step runs once and the others find it done. The
 * lock goes with the connection if the process dies, so a crashed peer never blocks the next start.
 */
export async function withStartupLock(db: DB, work: (db: DB) => Promise<void>): Promise<void> {
  await db.connection().execute(async (connection) => {
    const key = sql`hashtext('storefront start-up ' || current_schema())`;
    const deadline = performance.now() + STARTUP_LOCK_WAIT_MS;
    for (;;) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(connection);
      if (rows[0]?.locked) break;
      if (performance.now() > deadline) throw new Error(`Another instance held the start-up lock for ${STARTUP_LOCK_WAIT_MS / 60_000} minutes`);
      await sleep(STARTUP_LOCK_RETRY_MS);
    }
    try {
      await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(connection);
    }
  });
}
