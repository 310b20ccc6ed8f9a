// Responses made from bytes already in memory, kept beside them so compression reads them without turning a light
// response into a full one.

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Responses made from bytes already in memory (a rendered page), with those bytes beside them, for middleware that
 * reads a whole body (compression). Asking such a Response for its body turns @hono/node-server's lightweight
 * Response into a full web Response: the bytes copied into a stream and read back out of it, about 0.03 ms of CPU
 * and three copies of the home page for the collector. Keyed by the Response object itself, so a Response made anew
 * by anyone in between (with other headers or another body) is simply not found, and is read the usual way.
 */
const bytesOf = new WeakMap<Response, Uint8Array<ArrayBuffer>>();

/** A Response of these bytes, whose body `readBody` hands over without reading it. The bytes must not change later. */
export function bytesResponse(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit): Response {
  const response = new Response(bytes, init);
  bytesOf.set(response, bytes);
  return response;
}

/** The whole body of a response (undefined for none): as made by `bytesResponse`, else read from its stream. */
export async function readBody(response: Response): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const known = bytesOf.get(response);
  if (known) return known;
  if (!response.body) return undefined;
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * A JSON answer as bytes with its length stated, in place of Hono's `c.json`, whose body is a string of unknown length:
 * compression then passes a small answer (most are: a client secret, an order number) by its header, and reads a large
 * one's bytes without turning it into a stream. Made through `c.body`, so headers already set on the context (a
 * session's cookie) come with it.
 */
export function jsonResponse(
  c: Context,
  value: unknown,
  status: ContentfulStatusCode,
  headers: Record<string, string> = {},
): Response {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const response = c.body(bytes, status, {
    "Content-Type": "application/json",
    "Content-Length": String(bytes.byteLength),
    ...headers,
  });
  bytesOf.set(response, bytes);
  return response;
}
