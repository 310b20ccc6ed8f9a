// Counting attempts per key and window, on sign-in, reset links, payments and alerts: in the database, so every instance
// shares the limits, or in the memory of a shop that is one process.

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

/** One counter's state after a hit: attempts in its current window, this one included, and what is left of it. */
export interface CounterState {
  attempts: number;
  remainingMs: number;
}

/**
 * Where the attempt counters live. Fixed windows: a counter's window restarts at the first hit after it has passed,
 * otherwise the count goes up.
 */
export interface AttemptCounters {
  /** One hit on each key (distinct), in one step, all with the same window; the states by key. */
  hit(keys: readonly string[], windowMs: number): Promise<Map<string, CounterState>>;
  /** Whether the key has a hit in a window of `windowMs` ending now. */
  hasHit(key: string, windowMs: number): Promise<boolean>;
  /** One hit taken back, never below none. */
  refund(key: string): Promise<void>;
}

/**
 * The counters in the database, so that every instance sharing it shares the limits. One atomic upsert per call,
 * however many counters it counts; its keys taken in a fixed order, so two calls counting the same counters never
 * wait on each other in a circle.
 */
export function databaseCounters(db: DB): AttemptCounters {
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

  return {
    async hit(keys, windowMs) {
      const sorted = [...keys].sort();
      const { rows } = await upsertFor(sorted.length)({
        windowSeconds: windowMs / 1000,
        ...Object.fromEntries(sorted.map((key, index) => [`key${index}`, key])),
      });
      return new Map(rows.map((row) => [row.key, { attempts: row.attempts, remainingMs: Number(row.remaining_ms) }]));
    },

    async hasHit(key, windowMs) {
      const row = await db
        .selectFrom("rate_limits")
        .select("attempts")
        .where("key", "=", key)
        .where("window_started_at", ">", sql<Date>`now() - make_interval(secs => ${windowMs / 1000})`)
        .executeTakeFirst();
      return (row?.attempts ?? 0) > 0;
    },

    async refund(key) {
      await db
        .updateTable("rate_limits")
        .set({ attempts: sql`greatest(attempts - 1, 0)` })
        .where("key", "=", key)
        .execute();
    },
  };
}

/**
 * Counters a process keeps at most: a few hundred bytes each, tens of megabytes in all. Past it the counter whose
 * window started first is forgotten, which only ever lets an attempt through early.
 */
export const MAX_MEMORY_COUNTERS = 100_000;

/**
 * The counters in this process's memory, for a shop that is one process: PGlite's (one process per DATA_DIR, which
 * its lock enforces). The same limits as in the database, without a write to it per attempt, the dearest part of
 * counting there (a checkout makes three). A restart forgets the counts, as the retention sweep forgets a day-old one.
 * `now` is the clock the windows are read by (tests move it on).
 */
export function memoryCounters({
  maxCounters = MAX_MEMORY_COUNTERS,
  now = Date.now,
}: { maxCounters?: number; now?: () => number } = {}): AttemptCounters {
  // In the order their windows started (a restarted window moves to the end), so the first is the oldest.
  const counters = new Map<string, { startedAt: number; windowMs: number; attempts: number }>();
  const isOver = (counter: { startedAt: number; windowMs: number }, at: number) =>
    counter.startedAt + counter.windowMs <= at;

  function hitOne(key: string, windowMs: number, at: number): CounterState {
    let counter = counters.get(key);
    if (counter && counter.startedAt > at - windowMs) {
      counter.attempts += 1;
    } else {
      counters.delete(key);
      counter = { startedAt: at, windowMs, attempts: 1 };
      counters.set(key, counter);
    }
    return { attempts: counter.attempts, remainingMs: counter.startedAt + windowMs - at };
  }

  /** Counters whose windows have passed go from the front; past the bound, the oldest goes whatever its window. */
  function prune(at: number) {
    for (const [key, counter] of counters) {
      if (counters.size <= maxCounters && !isOver(counter, at)) break;
      counters.delete(key);
    }
  }

  return {
    async hit(keys, windowMs) {
      const at = now();
      const states = new Map(keys.map((key) => [key, hitOne(key, windowMs, at)]));
      prune(at);
      return states;
    },

    async hasHit(key, windowMs) {
      const counter = counters.get(key);
      return counter !== undefined && counter.startedAt > now() - windowMs && counter.attempts > 0;
    },

    async refund(key) {
      const counter = counters.get(key);
      if (counter) counter.attempts = Math.max(counter.attempts - 1, 0);
    },
  };
}

/** Rate limits by rule and subject, over counters kept in the database or in memory (AttemptCounters). */
export function createRateLimiter(counters: AttemptCounters) {
  /**
   * Counts one attempt on each counter, in one step; the results come in the order of the hits. The hits share one
   * window length (the counters count them together).
   */
  async function hitAll(hits: readonly RateLimitHit[]): Promise<RateLimitResult[]> {
    const windowMs = hits[0]?.rule.windowMs;
    if (windowMs === undefined) return [];
    if (hits.some(({ rule }) => rule.windowMs !== windowMs))
      throw new Error("Rate limits counted together must share a window");
    if (windowMs > LONGEST_WINDOW_MS)
      throw new Error(`Rate limit ${hits[0]!.rule.name}: windows longer than a day are swept away early`);
    const keys = hits.map(({ rule, subject }) => keyOf(rule, subject));
    const states = await counters.hit([...new Set(keys)], windowMs);
    return hits.map(({ rule }, index) => {
      const { attempts, remainingMs } = states.get(keys[index]!)!;
      const allowed = attempts <= rule.limit;
      return { allowed, count: attempts, retryAfterMs: allowed ? 0 : Math.max(1000, Math.ceil(remainingMs)) };
    });
  }

  return {
    hitAll,

    async hit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
      const [result] = await hitAll([{ rule, subject }]);
      return result!;
    },

    /** Whether the counter has a hit in its current window (without counting one). */
    hasHit: (rule: RateLimitRule, subject: string): Promise<boolean> =>
      counters.hasHit(keyOf(rule, subject), rule.windowMs),

    /** Takes back one hit in the current window: an attempt counted in advance that turned out not to count. */
    refund: (rule: RateLimitRule, subject: string): Promise<void> => counters.refund(keyOf(rule, subject)),
  };
}

const keyOf = (rule: RateLimitRule, subject: string) => `${rule.name}:${subject}`;

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
