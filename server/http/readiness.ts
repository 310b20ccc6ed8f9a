// Whether this process takes new work: draining after SIGTERM, and a bound on requests in flight past which it answers
// 503 with Retry-After.

import type { MiddlewareHandler } from "hono";
import { AppError } from "#shared/errors";

/**
 * Whether this process should be sent new work. Liveness (/healthz) says the process and its database answer;
 * readiness (/readyz) adds that it is not shutting down: SIGTERM makes it draining at once, so a load balancer takes
 * it out of rotation while the requests it already has finish.
 */
export interface Readiness {
  isDraining: boolean;
  /** Requests this process is working on now (those boundedWork admitted and has not answered yet). */
  inFlight: number;
}

export function createReadiness(): Readiness {
  return { isDraining: false, inFlight: 0 };
}

/** MAX_REQUESTS_IN_FLIGHT's default: a few hundred milliseconds of work for one process at its busiest. */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 200;

/** Seconds a shed request is told to wait: the work ahead of it takes well under that. */
const SHED_RETRY_AFTER_SECONDS = 1;

/**
 * Bounds the work this process holds: past `maxInFlight` requests at once, the next is answered 503 with Retry-After
 * straight away instead of joining a queue (the embedded database runs one query at a time, a PostgreSQL pool a few),
 * so an overload costs a shopper a quick "try again" rather than a page that hangs for seconds. While draining,
 * every answer closes its connection, so keep-alive clients (a load balancer's pooled connections) move elsewhere.
 */
export function boundedWork(
  readiness: Readiness,
  maxInFlight: number,
  onShed: () => void = () => {},
): MiddlewareHandler {
  return async (c, next) => {
    if (readiness.inFlight >= maxInFlight) {
      onShed();
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        "The shop is very busy right now. Nothing was changed; please try again in a moment.",
        {
          retryAfterSeconds: SHED_RETRY_AFTER_SECONDS,
        },
      );
    }
    readiness.inFlight += 1;
    try {
      await next();
    } finally {
      readiness.inFlight -= 1;
      if (readiness.isDraining) c.res.headers.set("Connection", "close");
    }
  };
}
