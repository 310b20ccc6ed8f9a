/**
 * Waiting for the built-in processor's webhooks: a test that says "the webhooks arrive too, and record nothing more"
 * waits until every event the processor has written so far is delivered (or given up on), then looks.
 */

import { sql } from "kysely";
import { expect } from "vitest";
import type { DB } from "#server/db/client";

/** Resolves once the processor's events in this database are all delivered or given up on. */
export async function webhooksDelivered(db: DB, timeout = 15_000): Promise<void> {
  const undelivered = sql<{ count: number }>`select count(*)::int as count from processor_events
    where delivered_at is null and gave_up_at is null`;
  await expect.poll(async () => (await undelivered.execute(db)).rows[0]?.count, { timeout, interval: 50 }).toBe(0);
}
