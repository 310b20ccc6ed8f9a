// The retention sweep: expired sessions, stale counters and events, lapsed holds and old reminders deleted in small
// batches.

import { sql, type RawBuilder } from "kysely";
import { LONGEST_WINDOW_MS } from "#server/rate-limits/rate-limiter";
import type { DB } from "#server/db/client";
import type { Logger } from "#server/logger";

/** Rows per delete statement: short transactions that never hold many locks, whatever the backlog. */
export const RETENTION_BATCH_SIZE = 1_000;
/** How often a running instance sweeps (it also sweeps once at start). */
export const RETENTION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * How long each kind of row is kept. An expired session is kept an hour more, so that a request which found it just
 * before it expired never sees its basket vanish midway; a webhook event is remembered for 30 days, far past
 * Stripe's three days of retries.
 */
export const RETENTION = {
  expiredSessionGraceMs: 60 * 60 * 1000,
  rateLimitWindowMs: LONGEST_WINDOW_MS,
  processedWebhookEventMs: 30 * 24 * 60 * 60 * 1000,
  /** A reset or confirmation link a day past its expiry: used or not, nothing will ever accept it. */
  expiredAccountTokenMs: 24 * 60 * 60 * 1000,
  /**
   * A promotion code's hold on a use that lapsed unredeemed, a day on: it stopped counting against "Total uses" when
   * it lapsed, and a payment that succeeds later redeems without it (as over the limit, if the last use went).
   */
  lapsedPromotionHoldMs: 24 * 60 * 60 * 1000,
  /**
   * A basket reminder, 400 days on: the dashboard's longest range (366 days) plus the week after a reminder in which
   * an order counts as recovered, with room to spare.
   */
  basketReminderMs: 400 * 24 * 60 * 60 * 1000,
} as const;

/** One batch of one kind of row: deletes at most `limit` rows and says how many went. */
export type BatchDelete = (db: DB, limit: number) => Promise<number>;

/**
 * A batch delete of the rows of `table` whose `timeColumn` is more than `ageMs` in the past, picked by `keyColumn`
 * (names from this file, never from a request). The rows are taken FOR UPDATE SKIP LOCKED, so instances sweeping at
 * the same time each take different rows instead of queueing behind one another.
 */
function deleteOlderThan(
  table: string,
  keyColumn: string,
  timeColumn: string,
  ageMs: number,
  alsoWhere: RawBuilder<boolean> = sql<boolean>`true`,
): BatchDelete {
  return async (db, limit) => {
    const before = new Date(Date.now() - ageMs);
    const result = await sql`
      delete from ${sql.table(table)} where ${sql.ref(keyColumn)} in (
        select ${sql.ref(keyColumn)} from ${sql.table(table)} where ${sql.ref(timeColumn)} < ${before} and ${alsoWhere}
        limit ${limit} for update skip locked)`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  };
}

/**
 * Deleting a session deletes its basket and the basket's items (ON DELETE CASCADE); its orders and payments stay,
 * detached from it (ON DELETE SET NULL), as at sign-out.
 */
const SHOP_BATCHES: Record<string, BatchDelete> = {
  sessions: deleteOlderThan("sessions", "id", "expires_at", RETENTION.expiredSessionGraceMs),
  rateLimits: deleteOlderThan("rate_limits", "key", "window_started_at", RETENTION.rateLimitWindowMs),
  processedWebhookEvents: deleteOlderThan(
    "processed_webhook_events",
    "id",
    "processed_at",
    RETENTION.processedWebhookEventMs,
  ),
  accountTokens: deleteOlderThan("account_tokens", "token_hash", "expires_at", RETENTION.expiredAccountTokenMs),
  promotionHolds: deleteOlderThan(
    "promotion_uses",
    "hold",
    "expires_at",
    RETENTION.lapsedPromotionHoldMs,
    sql<boolean>`redeemed_at is null`,
  ),
  basketReminders: deleteOlderThan("basket_reminders", "id", "decided_at", RETENTION.basketReminderMs),
};

export interface RetentionSweepOptions {
  db: DB;
  logger: Logger;
  batchSize?: number;
}

/**
 * Deletes what the shop no longer needs: expired sessions (with their baskets), stale rate-limit windows, old
 * processed webhook events, dead account links, lapsed promotion holds, basket reminders past the dashboard's reach. (The built-in processor purges its own expired idempotency keys.) `runOnce` sweeps everything now; `start` sweeps at
 * once and then every interval; `stop` ends the timer and waits for a sweep in progress.
 */
export function createRetentionSweep({ db, logger, batchSize = RETENTION_BATCH_SIZE }: RetentionSweepOptions) {
  const batches = SHOP_BATCHES;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function runOnce(): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const [name, deleteBatch] of Object.entries(batches)) {
      deleted[name] = 0;
      for (;;) {
        const count = await deleteBatch(db, batchSize);
        deleted[name] += count;
        if (count < batchSize) break;
      }
    }
    return deleted;
  }

  function sweepInBackground() {
    if (running) return;
    running = runOnce()
      .then((deleted) => {
        if (Object.values(deleted).some((count) => count > 0)) logger.info({ deleted }, "retention sweep");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "retention sweep failed; the next one will try again"))
      .finally(() => {
        running = undefined;
      });
  }

  return {
    runOnce,
    start(intervalMs = RETENTION_SWEEP_INTERVAL_MS) {
      sweepInBackground();
      timer = setInterval(sweepInBackground, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
