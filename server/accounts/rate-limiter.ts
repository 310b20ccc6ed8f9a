import { sql } from "kysely";
import { AppError, type ErrorCode } from "../../shared/errors";
import type { DB } from "../db/client";

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

/**
 * Fixed-window attempt counters in the database, so the limit holds across every server instance. One atomic
 * upsert per attempt: the window restarts when it has passed, otherwise the count goes up.
 */
export function createRateLimiter(db: DB) {
  return {
    async hit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
      if (rule.windowMs > LONGEST_WINDOW_MS) throw new Error(`Rate limit ${rule.name}: windows longer than a day are swept away early`);
      const key = `${rule.name}:${subject}`;
      const windowSeconds = rule.windowMs / 1000;
      const row = await db
        .insertInto("rate_limits")
        .values({ key, window_started_at: sql`now()`, attempts: 1 })
        .onConflict((conflict) =>
          conflict.column("key").doUpdateSet({
            attempts: sql`case when rate_limits.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then 1 else rate_limits.attempts + 1 end`,
            window_started_at: sql`case when rate_limits.window_started_at <= now() - make_interval(secs => ${windowSeconds}) then now() else rate_limits.window_started_at end`,
          }),
        )
        .returning(["attempts", sql<number>`extract(epoch from (window_started_at + make_interval(secs => ${windowSeconds}) - now())) * 1000`.as("remaining_ms")])
        .executeTakeFirstOrThrow();
      const allowed = row.attempts <= rule.limit;
      return { allowed, count: row.attempts, retryAfterMs: allowed ? 0 : Math.max(1000, Math.ceil(Number(row.remaining_ms))) };
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
  return new AppError(code, `${reason} Please wait ${wait} and try again.`, { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) });
}
