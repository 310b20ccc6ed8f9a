import { AsyncLocalStorage } from "node:async_hooks";

/**
 * PGlite has one connection, so at capacity the order in which statements get it decides who waits, and for how
 * long. Two rules, both measured with 200 hurried shoppers on one process (decision 016):
 *
 * - **Oldest request first.** First come, first served per statement is the wrong order: a checkout makes a dozen
 *   statements, and each would queue behind the first statement of every request that arrived since, so the longest
 *   requests wait longest, some past the shopper's patience. Served by when the request each statement belongs to
 *   arrived, a request under way finishes before newer ones start, and a wait is bounded by the work already
 *   admitted when the request arrived.
 * - **Let the event loop breathe.** PGlite runs a statement synchronously and answers through a promise, so handing
 *   the connection from one waiter to the next is a chain of microtasks: with a queue of waiters it runs for seconds
 *   without reading a socket, and the shop's own calls to its built-in processor (over HTTP, to itself) went
 *   unanswered for 2 s at a time. Every few milliseconds of such a chain, the hand-off waits for a turn of the loop.
 */
const requestArrival = new AsyncLocalStorage<number>();

/** A chain of hand-offs longer than this yields to the event loop before the next statement. */
export const YIELD_AFTER_MS = 4;

/** Runs a request's work so that its statements on PGlite take their turns by when the request arrived. */
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

/**
 * A lock whose waiters are woken lowest rank first, in the order they came among equal ranks. The lock passes
 * straight from holder to waiter, so nobody can take it in between; after `yieldAfterMs` of such hand-offs without a
 * turn of the event loop, the next one waits for a turn (setImmediate), so sockets and timers are served meanwhile.
 */
export class OldestFirstLock {
  #isHeld = false;
  #lastTurnOfLoop = 0;
  /** Sorted by rank; a newcomer goes after every waiter of the same rank. */
  readonly #waiting: { rank: number; wake: () => void }[] = [];

  readonly #yieldAfterMs: number;

  constructor(yieldAfterMs: number) {
    this.#yieldAfterMs = yieldAfterMs;
  }

  acquire(rank: number): Promise<void> {
    if (!this.#isHeld) {
      this.#isHeld = true;
      return Promise.resolve();
    }
    return new Promise((wake) => {
      let low = 0;
      let high = this.#waiting.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.#waiting[middle]!.rank <= rank) low = middle + 1;
        else high = middle;
      }
      this.#waiting.splice(low, 0, { rank, wake });
    });
  }

  get isHeld() {
    return this.#isHeld;
  }

  get waiting() {
    return this.#waiting.length;
  }

  release() {
    const next = this.#waiting.shift();
    if (!next) {
      this.#isHeld = false;
    } else if (performance.now() - this.#lastTurnOfLoop < this.#yieldAfterMs) {
      next.wake();
    } else {
      setImmediate(() => {
        this.#lastTurnOfLoop = performance.now();
        next.wake();
      });
    }
  }
}
