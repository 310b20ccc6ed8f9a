import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import { openBarePglite } from "#server/testing/test-database";
import { openDatabase, type DatabaseHandle } from "./client";
import { isDatabaseUnavailable } from "./database-errors";
import { asArrivedNow, asFirstInLine, OldestFirstQueue, TurnTimeoutError } from "./oldest-first-queue";

const NEVER_YIELD = Number.POSITIVE_INFINITY;

/** Lets performance.now() move on, so that the next request has arrived strictly later. */
function laterByAMoment() {
  const start = performance.now();
  while (performance.now() - start < 0.05);
}

describe("OldestFirstQueue", () => {
  it("gives turns lowest rank first, and in the order they came among equal ranks", async () => {
    const queue = new OldestFirstQueue({ permits: 1, yieldAfterMs: NEVER_YIELD });
    await queue.acquire(5);
    const woken: string[] = [];
    const waiters = [
      queue.acquire(30).then(() => woken.push("30")),
      queue.acquire(10).then(() => woken.push("10 first")),
      queue.acquire(20).then(() => woken.push("20")),
      queue.acquire(10).then(() => woken.push("10 second")),
    ];
    expect(queue.waiting).toBe(4);
    for (let index = 0; index < waiters.length; index += 1) {
      queue.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiters);
    expect(woken).toEqual(["10 first", "10 second", "20", "30"]);
  });

  it("gives out as many turns at once as it has, and takes them back", async () => {
    const queue = new OldestFirstQueue({ permits: 2, yieldAfterMs: NEVER_YIELD });
    await queue.acquire(1);
    await queue.acquire(2);
    let third = false;
    const waiting = queue.acquire(3).then(() => (third = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    queue.release();
    await waiting;
    expect(queue.inUse).toBe(2);
    queue.release();
    queue.release();
    expect(queue.inUse).toBe(0);
  });

  it("a wait past its bound fails, and the turn it did not get goes to the next waiter", async () => {
    const queue = new OldestFirstQueue({ permits: 1, yieldAfterMs: NEVER_YIELD });
    await queue.acquire(1);
    const impatient = queue.acquire(2, 20);
    const patient = queue.acquire(3);
    await expect(impatient).rejects.toBeInstanceOf(TurnTimeoutError);
    expect(queue.waiting).toBe(1);
    queue.release();
    await patient;
    expect(queue.inUse).toBe(1);
  });
});

/** A request's work as the shop does it: `count` statements one after another. */
async function statements(db: DatabaseHandle["db"], count: number, afterEach: () => void = () => {}) {
  for (let index = 0; index < count; index += 1) {
    await sql`select ${index}::int as n`.execute(db);
    afterEach();
  }
}

describe("PGlite's one connection, oldest request first", () => {
  it("a request under way is not overtaken by thirty that arrive after it", async () => {
    const { db } = openBarePglite();
    await statements(db, 1);
    let newerStatements = 0;
    let newerStatementsWhenOlderFinished = -1;
    const older = asArrivedNow(() =>
      statements(db, 10).then(() => (newerStatementsWhenOlderFinished = newerStatements)),
    );
    laterByAMoment();
    const newer = Array.from({ length: 30 }, () =>
      asArrivedNow(() => statements(db, 10, () => (newerStatements += 1))),
    );
    await Promise.all([older, ...newer]);

    // Served statement by statement as they come, the newer requests would make about 9 × 30 before the older one's
    // tenth. Oldest first, at most one slips in each time the older request is between two of its statements.
    expect(newerStatements).toBe(300);
    expect(newerStatementsWhenOlderFinished).toBeGreaterThanOrEqual(0);
    expect(newerStatementsWhenOlderFinished).toBeLessThanOrEqual(10);
  });

  it("work the older requests wait on (the built-in processor's answers) goes ahead of them", async () => {
    const { db } = openBarePglite();
    await statements(db, 1);
    const finished: string[] = [];
    const waiting = Array.from({ length: 20 }, (_, index) =>
      asArrivedNow(() => statements(db, 5).then(() => finished.push(`request ${index}`))),
    );
    const firstInLine = asFirstInLine(() => statements(db, 5).then(() => finished.push("processor")));
    await Promise.all([...waiting, firstInLine]);
    expect(finished.indexOf("processor")).toBeLessThanOrEqual(1);
  });

  it("sockets and timers are served while a long queue of statements is worked through", async () => {
    const handle = openBarePglite();
    const db = handle.db;
    await statements(db, 1);
    let done = 0;
    const total = 100 * 20;
    const work = Array.from({ length: 100 }, () => asArrivedNow(() => statements(db, 20, () => (done += 1))));
    const [doneWhenTimerRan, statsMeanwhile] = await new Promise<
      [number, ReturnType<NonNullable<DatabaseHandle["poolStats"]>>]
    >((resolve) => setTimeout(() => resolve([done, handle.poolStats!()]), 0));
    await Promise.all(work);
    expect(done).toBe(total);
    // /metrics sees the queue as a pool of one with statements waiting.
    expect(statsMeanwhile).toMatchObject({ total: 1, idle: 0, waiting: expect.any(Number) });
    expect(statsMeanwhile.waiting).toBeGreaterThan(0);
    expect(handle.poolStats!()).toEqual({ total: 1, idle: 1, waiting: 0 });
    // Handed from waiter to waiter by promises alone, the whole queue would run before the timer.
    expect(doneWhenTimerRan).toBeLessThan(total / 2);
  });
});

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)("a PostgreSQL pool, oldest request first", () => {
  it("hands a freed connection to the request that arrived first, and a wait past 3 s is a database that cannot be reached", async () => {
    const database = openDatabase({ kind: "postgres", url: url!, poolSize: 1 });
    try {
      let letGo!: () => void;
      const held = database.db.connection().execute(() => new Promise<void>((resolve) => (letGo = resolve)));
      // The pool's one connection is taken.
      await vi.waitFor(() => expect(database.poolStats!()).toMatchObject({ total: 1, idle: 0 }));

      const finished: string[] = [];
      let askNow!: () => void;
      const asking = new Promise<void>((resolve) => (askNow = resolve));
      // The older request arrives first but asks for the database only after the newer one has.
      const older = asArrivedNow(async () => {
        await asking;
        await sql`select 1`.execute(database.db);
        finished.push("older");
      });
      laterByAMoment();
      const newer = asArrivedNow(async () => {
        await sql`select 1`.execute(database.db);
        finished.push("newer");
      });
      await vi.waitFor(() => expect(database.poolStats!().waiting).toBe(1));
      askNow();
      await vi.waitFor(() => expect(database.poolStats!().waiting).toBe(2));
      letGo();
      await Promise.all([held, older, newer]);
      expect(finished).toEqual(["older", "newer"]);

      const stillHeld = database.db.connection().execute(() => new Promise<void>((resolve) => (letGo = resolve)));
      const started = performance.now();
      const error = await sql`select 1`.execute(database.db).catch((failure: unknown) => failure);
      expect(performance.now() - started).toBeGreaterThan(2_500);
      expect(isDatabaseUnavailable(error)).toBe(true);
      letGo();
      await stillHeld;
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
  });
});
