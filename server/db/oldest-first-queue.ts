// Who gets the database next when every connection is busy: the oldest request first, and a long request yields after a
// while, so a crowd of shoppers waits fairly (decision 016).

import { AsyncLocalStorage } from "node:async_hooks";

/**
 * At capacity the order in which requests get the database decides who waits, and for how long: PGlite has one
 * connection, a PostgreSQL pool a few. Two rules, both measured with 200 hurried shoppers on one process (decision
 * 016):
 *
 * - **Oldest request first.** First come, first served per statement is the wrong order: a checkout makes a dozen
 *   statements, and each would queue behind the first statement of every request that arrived since, so the longest
 *   requests wait longest, some past the shopper's patience. Served by when the request each statement belongs to
 *   arrived, a request under way finishes before newer ones start, and a wait is bounded by the work already
 *   admitted when the request arrived.
 * - **Let the event loop breathe** (PGlite). PGlite runs a statement synchronously and answers through a promise,
 *   so handing the connection from one waiter to the next is a chain of microtasks: with a queue of waiters it runs
 *   for seconds without reading a socket, and the shop's own calls to its built-in processor (over HTTP, to itself)
 *   went unanswered for 2 s at a time. Every few milliseconds of such a chain, the hand-off waits for a turn of the
 *   loop.
 */
const requestArrival = new AsyncLocalStorage<number>();

/** A chain of hand-offs longer than this yields to the event loop before the next statement. */
export const YIELD_AFTER_MS = 4;

/** Runs a request's work so that its statements take their turns on the database by when the request arrived. */
export function asArrivedNow<T>(work: () => T): T {
  return requestArrival.run(performance.now(), work);
}

/** Runs work that requests already under way are waiting on (the built-in processor's answers) ahead of them all. */
export function asFirstInLine<T>(work: () => T): T {
  return requestArrival.run(0, work);
}

/** The rank a statement made now waits with: its request's arrival, or now for work outside any request. */
export function currentRank(): number {
  // Work outside any request (the outbox, webhook deliveries, start-up) ranks by when it asks.
  return requestArrival.getStore() ?? performance.now();
}

/** A wait for a turn that lasted longer than the caller allowed. */
export class TurnTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no turn on the database within ${timeoutMs} ms`);
    this.name = "TurnTimeoutError";
  }
}

interface Waiter {
  rank: number;
  wake: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Hands out at most `permits` turns at once (PGlite's one connection, a PostgreSQL pool's connections); waiters get
 * theirs lowest rank first, in the order they came among equal ranks. A turn passes straight from the one who gives
 * it back to the next waiter, so nobody can take it in between; after `yieldAfterMs` of such hand-offs without a
 * turn of the event loop, the next one waits for a turn of the loop (setImmediate), so sockets and timers are
 * served meanwhile.
 */
export class OldestFirstQueue {
  #inUse = 0;
  #lastTurnOfLoop = 0;
  /** Sorted by rank; a newcomer goes after every waiter of the same rank. */
  readonly #waiting: Waiter[] = [];
  readonly #permits: number;
  readonly #yieldAfterMs: number;

  constructor({ permits, yieldAfterMs }: { permits: number; yieldAfterMs: number }) {
    this.#permits = permits;
    this.#yieldAfterMs = yieldAfterMs;
  }

  /** Resolves when the caller has a turn; with `timeoutMs`, rejects with TurnTimeoutError if none came by then. */
  acquire(rank: number, timeoutMs?: number): Promise<void> {
    if (this.#inUse < this.#permits) {
      this.#inUse += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { rank, wake: resolve };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          reject(new TurnTimeoutError(timeoutMs));
        }, timeoutMs);
      }
      let low = 0;
      let high = this.#waiting.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.#waiting[middle]!.rank <= rank) low = middle + 1;
        else high = middle;
      }
      this.#waiting.splice(low, 0, waiter);
    });
  }

  /** Turns taken now. */
  get inUse() {
    return this.#inUse;
  }

  get waiting() {
    return this.#waiting.length;
  }

  release() {
    const next = this.#waiting.shift();
    if (!next) {
      this.#inUse -= 1;
      return;
    }
    clearTimeout(next.timer);
    if (performance.now() - this.#lastTurnOfLoop < this.#yieldAfterMs) {
      next.wake();
    } else {
      setImmediate(() => {
        this.#lastTurnOfLoop = performance.now();
        next.wake();
      });
    }
  }
}
