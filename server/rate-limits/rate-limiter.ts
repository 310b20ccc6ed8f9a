// Counting attempts per key and window in the database, so every instance shares the limits on sign-in, reset links,
// payments and alerts.

import { sql } from "kysely";
import { AppError, type ErrorCode } from "#shared/errors";
import type { DB } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";

export interface RateLimitRule {
  /** What is being limited, part of the key: "sign-in:ip". */
  name: string;
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

/**
 * No rule's window is longer than this, so a counter whose window started earlier is stale whatever its rule: the
 * retention sweep deletes it, which is the same as the reset its next hit would make.
 */
export const LONGEST_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface RateLimitResult {
  allowed: boolean;
  /** When refused: how long until the window resets. */
  retryAfterMs: number;
  /** Hits in the current window, this one included. */
  count: number;
}

/** One attempt against one rule: the subject is what the rule counts (an address, a session, an e-mail). */
export interface RateLimitHit {
  rule: RateLimitRule;
  subject: string;
}

/**
 * Fixed-window attempt counters in the database, so the limit holds across every server instance. One atomic
 * upsert per call, however many counters it counts: the window restarts when it has passed, otherwise the count
 * goes up.
 */
export function createRateLimiter(db: DB) {
  /** The upsert for `count` counters, built and compiled once per count (a request counts one or two). */
  const upserts = new Map<number, ReturnType<typeof prepareUpsert>>();
  const upsertFor = (count: number) => {
    let upsert = upserts.get(count);
    if (!upsert) upserts.set(count, (upsert = prepareUpsert(count)));
    return upsert;
  };
  function prepareUpsert(count: number) {
    const keyNames = Array.from({ length: count }, (_, index) => `key${index}`);
    return preparedStatement(db, ["windowSeconds", ...keyNames], (db, values: Record<string, unknown>) =>
      db
        .insertInto("rate_limits")
        .values(
          keyNames.map((name) => ({
            key: values[name] as string,
            window_started_at: sql<Date>`now()`,
            attempts: sql<number>`1`,
          })),
        )
        .onConflict((conflict) =>
          conflict.column("key").doUpdateSet({
            attempts: sql`case when rate_limits.window_started_at <= now() - make_interval(secs => ${values.windowSeconds}) then 1 else rate_limits.attempts + 1 end`,
            window_started_at: sql`case when rate_limits.window_started_at <= now() - make_interval(secs => ${values.windowSeconds}) then now() else rate_limits.window_started_at end`,
          }),
        )
        .returning([
          "key",
          "attempts",
          sql<number>`extract(epoch from (window_started_at + make_interval(secs => ${values.windowSeconds}) - now())) * 1000`.as(
            "remaining_ms",
          ),
        ]),
    );
  }

  /**
   * Counts one attempt on each counter, in one statement; the results come in the order of the hits. The hits share
   * one window length (the statement has one), and their keys are taken in a fixed order, so two calls counting the
   * same counters never wait on each other in a circle.
   */
  async function hitAll(hits: readonly RateLimitHit[]): Promise<RateLimitResult[]> {
    const windowMs = hits[0]?.rule.windowMs;
    if (windowMs === undefined) return [];
    if (hits.some(({ rule }) => rule.windowMs !== windowMs))
      throw new Error("Rate limits counted together must share a window");
    if (windowMs > LONGEST_WINDOW_MS)
      throw new Error(`Rate limit ${hits[0]!.rule.name}: windows longer than a day are swept away early`);
    const keys = hits.map(({ rule, subject }) => `${rule.name}:${subject}`);
    const windowSeconds = windowMs / 1000;
    const distinct = [...new Set(keys)].sort();
    const { rows } = await upsertFor(distinct.length)({
      windowSeconds,
      ...Object.fromEntries(distinct.map((key, index) => [`key${index}`, key])),
    });
    const byKey = new Map(rows.map((row) => [row.key, row]));
    return hits.map(({ rule }, index) => {
      const row = byKey.get(keys[index]!)!;
      const allowed = row.attempts <= rule.limit;
      return {
        allowed,
        count: row.attempts,
        retryAfterMs: allowed ? 0 : Math.max(1000, Math.ceil(Number(row.remaining_ms))),
      };
    });
  }

  return {
    hitAll,

    async hit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
      const [result] = await hitAll([{ rule, subject }]);
      return result!;
    },

    /** Whether the counter has a hit in its current window (without counting one). */
    async hasHit(rule: RateLimitRule, subject: string): Promise<boolean> {
      const row = await db
        .selectFrom("rate_limits")
        .select("attempts")
        .where("key", "=", `${rule.name}:${subject}`)
        .where("window_started_at", ">", sql<Date>`now() - make_interval(secs => ${rule.windowMs / 1000})`)
        .executeTakeFirst();
      return (row?.attempts ?? 0) > 0;
    },

    /** Takes back one hit in the current window: an attempt counted in advance that turned out not to count. */
    async refund(rule: RateLimitRule, subject: string): Promise<void> {
      await db
        .updateTable("rate_limits")
        .set({ attempts: sql`greatest(attempts - 1, 0)` })
        .where("key", "=", `${rule.name}:${subject}`)
        .execute();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** The 429 for a limit: the reason, how long to wait in words people use, and the same as Retry-After for machines. */
export function tooManyRequests(code: ErrorCode, reason: string, retryAfterMs: number): AppError {
  const minutes = Math.ceil(retryAfterMs / 60_000);
  const hours = Math.ceil(minutes / 60);
  const wait = minutes > 90 ? `${hours} hours` : `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
  return new AppError(code, `${reason} Please wait ${wait} and try again.`, {
    retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
  });
}
