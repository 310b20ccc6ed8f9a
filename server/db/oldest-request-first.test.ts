import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createPglite, wrapPglite, type DatabaseHandle } from "./client";
import { asArrivedNow, asFirstInLine, OldestFirstLock } from "./oldest-request-first";

let handle: DatabaseHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

function openPglite() {
  handle = wrapPglite(createPglite());
  return handle.db;
}

/** A request's work as the shop does it: `count` statements one after another. */
async function statements(db: DatabaseHandle["db"], count: number, afterEach: () => void = () => {}) {
  for (let index = 0; index < count; index += 1) {
    await sql`select ${index}::int as n`.execute(db);
    afterEach();
  }
}

/** Lets performance.now() move on, so that the next request has arrived strictly later. */
function laterByAMoment() {
  const start = performance.now();
  while (performance.now() - start < 0.05);
}

describe("PGlite's one connection, oldest request first", () => {
  it("a request under way is not overtaken by thirty that arrive after it", async () => {
    const db = openPglite();
    await statements(db, 1);
    let newerStatements = 0;
    let newerStatementsWhenOlderFinished = -1;
    const older = asArrivedNow(() => statements(db, 10).then(() => (newerStatementsWhenOlderFinished = newerStatements)));
    laterByAMoment();
    const newer = Array.from({ length: 30 }, () => asArrivedNow(() => statements(db, 10, () => (newerStatements += 1))));
    await Promise.all([older, ...newer]);

    // Served statement by statement as they come, the newer requests would make about 9 × 30 before the older one's
    // tenth. Oldest first, at most one slips in each time the older request is between two of its statements.
    expect(newerStatements).toBe(300);
    expect(newerStatementsWhenOlderFinished).toBeGreaterThanOrEqual(0);
    expect(newerStatementsWhenOlderFinished).toBeLessThanOrEqual(10);
  });

  it("work the older requests wait on (the built-in processor's answers) goes ahead of them", async () => {
    const db = openPglite();
    await statements(db, 1);
    const finished: string[] = [];
    const waiting = Array.from({ length: 20 }, (_, index) => asArrivedNow(() => statements(db, 5).then(() => finished.push(`request ${index}`))));
    const firstInLine = asFirstInLine(() => statements(db, 5).then(() => finished.push("processor")));
    await Promise.all([...waiting, firstInLine]);
    expect(finished.indexOf("processor")).toBeLessThanOrEqual(1);
  });

  it("sockets and timers are served while a long queue of statements is worked through", async () => {
    const db = openPglite();
    await statements(db, 1);
    let done = 0;
    const total = 100 * 20;
    const work = Array.from({ length: 100 }, () => asArrivedNow(() => statements(db, 20, () => (done += 1))));
    const doneWhenTimerRan = await new Promise<number>((resolve) => setTimeout(() => resolve(done), 0));
    await Promise.all(work);
    expect(done).toBe(total);
    // Handed from waiter to waiter by promises alone, the whole queue would run before the timer.
    expect(doneWhenTimerRan).toBeLessThan(total / 2);
  });
});

describe("OldestFirstLock", () => {
  it("wakes waiters lowest rank first, and in the order they came among equal ranks", async () => {
    const lock = new OldestFirstLock(Number.POSITIVE_INFINITY);
    await lock.acquire(5);
    const woken: string[] = [];
    const waiters = [
      lock.acquire(30).then(() => woken.push("30")),
      lock.acquire(10).then(() => woken.push("10 first")),
      lock.acquire(20).then(() => woken.push("20")),
      lock.acquire(10).then(() => woken.push("10 second")),
    ];
    for (let index = 0; index < waiters.length; index += 1) {
      lock.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiters);
    expect(woken).toEqual(["10 first", "10 second", "20", "30"]);
  });

  it("is free again once the last holder releases it", async () => {
    const lock = new OldestFirstLock(Number.POSITIVE_INFINITY);
    await lock.acquire(1);
    lock.release();
    let acquired = false;
    await lock.acquire(2).then(() => (acquired = true));
    expect(acquired).toBe(true);
  });
});
