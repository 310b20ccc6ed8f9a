import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./client";
import { isDatabaseUnavailable } from "./database-errors";
import { asArrivedNow, OldestFirstQueue, TurnTimeoutError } from "./oldest-first-queue";

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

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)("a PostgreSQL pool, oldest request first", () => {
  it("hands a freed connection to the request that arrived first, and a wait past 3 s is a database that cannot be reached", async () => {
    const database = openDatabase({ kind: "postgres", url: url!, poolSize: 1 });
    try {
      let letGo!: () => void;
      const held = database.db.connection().execute(() => new Promise<void>((resolve) => (letGo = resolve)));
      await new Promise((resolve) => setTimeout(resolve, 50));

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
      await new Promise((resolve) => setTimeout(resolve, 20));
      askNow();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(database.poolStats!().waiting).toBe(2);
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
