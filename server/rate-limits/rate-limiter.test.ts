import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { createRateLimiter, databaseCounters, memoryCounters, type AttemptCounters } from "./rate-limiter";

const MINUTE = 60_000;
const rule = (name: string, limit = 2, windowMs = 10 * MINUTE) => ({ name, limit, windowMs });

/**
 * What a caller of the limiter sees, whichever counters it runs on: `passes` moves the counters' time on by `ms`.
 * Each test names its own rules, so the counters it reads are its own.
 */
function behavesAsALimiter(counters: () => { counters: AttemptCounters; passes(ms: number): Promise<void> }) {
  it("allows the limit's attempts in a window, refuses the next with the time left, and starts again after it", async () => {
    const { counters: kept, passes } = counters();
    const limiter = createRateLimiter(kept);
    const signIn = rule("sign-in:ip");
    expect((await limiter.hit(signIn, "192.0.2.1")).allowed).toBe(true);
    expect((await limiter.hit(signIn, "192.0.2.1")).allowed).toBe(true);
    const refused = await limiter.hit(signIn, "192.0.2.1");
    expect(refused).toMatchObject({ allowed: false, count: 3 });
    expect(refused.retryAfterMs).toBeGreaterThan(9 * MINUTE);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(10 * MINUTE);
    // Another subject has counts of its own.
    expect(await limiter.hit(signIn, "192.0.2.2")).toMatchObject({ allowed: true, count: 1 });
    await passes(10 * MINUTE + 1000);
    expect(await limiter.hit(signIn, "192.0.2.1")).toMatchObject({ allowed: true, count: 1, retryAfterMs: 0 });
  });

  it("counts several counters at once, in the order asked, the same counter once", async () => {
    const { counters: kept } = counters();
    const limiter = createRateLimiter(kept);
    const perSession = rule("pay:session", 1);
    const perIp = rule("pay:ip", 5);
    const first = await limiter.hitAll([
      { rule: perSession, subject: "s1" },
      { rule: perIp, subject: "192.0.2.3" },
    ]);
    expect(first.map(({ allowed, count }) => ({ allowed, count }))).toEqual([
      { allowed: true, count: 1 },
      { allowed: true, count: 1 },
    ]);
    const second = await limiter.hitAll([
      { rule: perIp, subject: "192.0.2.3" },
      { rule: perSession, subject: "s1" },
    ]);
    expect(second.map(({ allowed, count }) => ({ allowed, count }))).toEqual([
      { allowed: true, count: 2 },
      { allowed: false, count: 2 },
    ]);
    expect(await limiter.hitAll([])).toEqual([]);
    await expect(
      limiter.hitAll([
        { rule: perSession, subject: "s1" },
        { rule: rule("pay:hour", 5, 60 * MINUTE), subject: "s1" },
      ]),
    ).rejects.toThrow("Rate limits counted together must share a window");
  });

  it("takes a hit back, never below none, and says whether a counter has a hit in its window", async () => {
    const { counters: kept, passes } = counters();
    const limiter = createRateLimiter(kept);
    const failures = rule("sign-in:email", 1);
    expect(await limiter.hasHit(failures, "a@example.com")).toBe(false);
    await limiter.hit(failures, "a@example.com");
    expect(await limiter.hasHit(failures, "a@example.com")).toBe(true);
    await limiter.refund(failures, "a@example.com");
    await limiter.refund(failures, "a@example.com");
    expect(await limiter.hasHit(failures, "a@example.com")).toBe(false);
    expect(await limiter.hit(failures, "a@example.com")).toMatchObject({ allowed: true, count: 1 });
    await passes(10 * MINUTE + 1000);
    expect(await limiter.hasHit(failures, "a@example.com")).toBe(false);
  });
}

describe("rate limits counted in memory", () => {
  function inMemory(maxCounters?: number) {
    let aheadMs = 0;
    const counters = memoryCounters({ maxCounters, now: () => Date.now() + aheadMs });
    return {
      counters,
      async passes(ms: number) {
        aheadMs += ms;
      },
    };
  }
  behavesAsALimiter(() => inMemory());

  it("keeps at most its bound of counters, forgetting the one whose window started first", async () => {
    const { counters, passes } = inMemory(3);
    const limiter = createRateLimiter(counters);
    const perIp = rule("sign-in:ip", 5);
    for (const subject of ["a", "b", "c"]) await limiter.hit(perIp, subject);
    await limiter.hit(perIp, "a");
    await passes(1000);
    await limiter.hit(perIp, "d");
    // "a" was the first counted: forgotten for "d", it starts again; "b" and "c" are kept.
    expect((await limiter.hit(perIp, "a")).count).toBe(1);
    expect((await limiter.hit(perIp, "c")).count).toBe(2);
  });

  it("forgets counters whose windows have passed", async () => {
    const { counters, passes } = inMemory(2);
    const limiter = createRateLimiter(counters);
    const short = rule("reset:email", 5, MINUTE);
    await limiter.hit(short, "a");
    await limiter.hit(short, "b");
    await passes(MINUTE);
    await limiter.hit(short, "c");
    // Both passed windows went, so the bound did not push out "c" when "d" came.
    await limiter.hit(short, "d");
    expect((await limiter.hit(short, "c")).count).toBe(2);
  });
});

describeEachDatabase("rate limits counted in the database", (getDatabase) => {
  behavesAsALimiter(() => ({
    counters: databaseCounters(getDatabase().db),
    async passes(ms: number) {
      await getDatabase()
        .db.updateTable("rate_limits")
        .set({ window_started_at: sql`window_started_at - make_interval(secs => ${ms / 1000})` })
        .execute();
    },
  }));
});
