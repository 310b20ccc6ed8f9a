import { sql } from "kysely";
import type { DB } from "../db/client";

export interface RateLimitRule {
  /** What is being limited, part of the key: "sign-in:ip". */
  name: string;
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** When refused: how long until the window resets. */
  retryAfterMs: number;
}

/**
 * Fixed-window attempt counters in the database, so the limit holds across every server instance. One atomic
 * upsert per attempt: the window restarts when it has passed, otherwise the count goes up.
 */
export function createRateLimiter(db: DB) {
  return {
    async hit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
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
      return { allowed, retryAfterMs: allowed ? 0 : Math.max(1000, Math.ceil(Number(row.remaining_ms))) };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
