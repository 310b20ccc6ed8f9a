// Start-up's lock: one instance at a time migrates and seeds the database, the others wait for it in short tries.

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
 * Runs `work` (migrations and seeding) in one transaction holding a transaction-scoped advisory lock keyed by the
 * schema: instances started together on one database take turns, so each step runs once and the others find it done.
 *
 * Transaction-scoped, so that start-up works through a pooler in transaction mode (PgBouncer, a managed database's
 * pooler), which may hand each statement outside a transaction to a different server connection: a session-level
 * lock would be taken on one connection and its release sent on another. A transaction keeps one server connection
 * from BEGIN to COMMIT, and the lock ends with it, also when the process dies half-way (its connection closes and the
 * transaction is rolled back, with whatever migration it had applied).
 */
export async function withStartupLock(db: DB, work: (db: DB) => Promise<void>): Promise<void> {
  await db.transaction().execute(async (transaction) => {
    const key = sql`hashtext('storefront start-up ' || current_schema())`;
    const deadline = performance.now() + STARTUP_LOCK_WAIT_MS;
    for (;;) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${key}) as locked`.execute(
        transaction,
      );
      if (rows[0]?.locked) break;
      if (performance.now() > deadline)
        throw new Error(`Another instance held the start-up lock for ${STARTUP_LOCK_WAIT_MS / 60_000} minutes`);
      await sleep(STARTUP_LOCK_RETRY_MS);
    }
    // Kysely's migrators, given this transaction, take and release their own lock inside it too.
    await work(transaction);
  });
}
