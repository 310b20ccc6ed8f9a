// The limit on a request's body, read from its Content-Length where it states one. Hono's bodyLimit looks at the body
// stream first, which makes @hono/node-server build a whole web Request (headers copied, a ReadableStream) for every
// request, a page view included. Only a body of unstated length is counted as it streams, by Hono's own middleware.

import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

export function limitBody(options: {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}): MiddlewareHandler {
  const streamed = bodyLimit(options);
  return async (c, next) => {
    const length = c.req.header("content-length");
    const isChunked = c.req.header("transfer-encoding") !== undefined;
    if (length !== undefined && !isChunked && /^\d+$/.test(length))
      return Number(length) > options.maxSize ? options.onError(c) : next();
    // Over HTTP/1.1 a request with neither header has no body; a GET or HEAD is then spared the stream.
    if (length === undefined && !isChunked && (c.req.method === "GET" || c.req.method === "HEAD")) return next();
    return streamed(c, next);
  };
}
