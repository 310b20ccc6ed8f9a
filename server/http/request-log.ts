// A request id for every request (echoed in X-Request-Id) and one JSON log line when its answer is ready.

import type { MiddlewareHandler } from "hono";
import type { Logger } from "#server/logger";

/**
 * Gives every request an id (echoed in X-Request-Id, so a shopper's report can be matched to a log line)
 * and writes one JSON line when the response is ready: method, path, status, duration.
 */
export function requestLog(logger: Logger): MiddlewareHandler<{ Variables: { requestId: string } }> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    await next();
    // On the response as made, not through c.header: that re-makes a finished response around its body as a stream,
    // which the node adapter then reads back chunk by chunk instead of writing the bytes it was given.
    c.res.headers.set("X-Request-Id", requestId);
    const status = c.res.status;
    // A client that went away (a closed tab, a timed-out caller) is not a server error: log it as what it was.
    const isAbandoned = c.req.raw.signal.aborted;
    const line = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(isAbandoned ? { abandoned: true } : {}),
    };
    if (status >= 500 && !isAbandoned) logger.error(line, "request");
    else logger.info(line, "request");
  };
}
