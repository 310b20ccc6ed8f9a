import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import type { DB } from "./client";

/**
 * How long start-up may wait for another instance's migrations and seeding. The wait is a series of short tries:
 * one statement blocked on the lock would meet the pool's 5-second statement and read timeouts, which are meant for
 * a shopper's queries, and fail an instance that waits behind a peer migrating a large table.
 */
const STARTUP_LOCK_WAIT_MS = 10 * 60_000;
const STARTUP_LOCK_RETRY_MS = 100;
/** The server-side limit for the migrations themselves (an index on a large table takes longer than 5 s). */
const STARTUP_STATEMENT_TIMEOUT = "10min";

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
      await sql`select set_config('statement_timeout', ${STARTUP_STATEMENT_TIMEOUT}, false)`.execute(connection);
      await work(connection);
    } finally {
      // Back to the pool's own timeout before the connection serves shoppers' queries.
      await sql`reset statement_timeout`.execute(connection);
      await sql`select pg_advisory_unlock(${key})`.execute(connection);
    }
  });
}
