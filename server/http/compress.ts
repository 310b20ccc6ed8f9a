// Compressing answers with zstd or gzip as the client accepts, whole bodies in one synchronous call, small ones left as
// they are.

import { constants, deflateSync, gzipSync, zstdCompressSync } from "node:zlib";
import type { MiddlewareHandler } from "hono";
import { parseAccept } from "hono/utils/accept";
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from "hono/utils/compress";
import { readBody } from "./response-bytes";

/** Smaller bodies go as they are: compressing them saves less than its headers and work cost. */
const THRESHOLD_BYTES = 1024;

/**
 * Who the compressed bytes are for. Most answers are one shopper's and are compressed for each request: there the
 * CPU counts. A guest's page is compressed once and kept for every guest (guest-page-cache.ts): there the bytes do.
 * Middleware before this one sets it for an answer it will keep.
 */
export type CompressionVariables = { compressFor?: Audience };
type Audience = "one" | "many";

/**
 * zstd for the browsers that ask for it by name (Chrome and Firefox do), gzip for everyone else; deflate only for a
 * client that prefers it.
 *
 * zstd's level follows who the bytes are for. Compressing was the largest part of what the shop adds to React
 * Router's own work on a shopper's page. On the seeded shop's 49 KB product page, with the CPU's caches cold as on a
 * busy server (2026-11-29): level 3, zstd's default, 0.45 ms and 13.8 KB; level 1 0.24 ms and 14.7 KB; level 9
 * 1.1 ms and 12.3 KB. So level 1 for one shopper's answer, level 9 for a page kept for every guest. gzip keeps its
 * default level for both: the browsers without zstd (Safari) are often on phones, where bytes count.
 */
const ZSTD_LEVEL = { one: 1, many: 9 } as const;
const ENCODERS = {
  // Told the size, zstd sizes its window and tables to the page instead of its 2 MB default.
  zstd: (body: Uint8Array, compressFor: Audience) =>
    zstdCompressSync(body, {
      pledgedSrcSize: body.byteLength,
      params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL[compressFor] },
    }),
  gzip: (body: Uint8Array) => gzipSync(body),
  deflate: (body: Uint8Array) => deflateSync(body),
} as const;
type Encoding = keyof typeof ENCODERS;

/**
 * Compresses dynamic answers (pages, JSON) for clients that accept zstd, gzip or deflate. Static files are not touched:
 * they are served precompressed and already carry Content-Encoding.
 *
 * Why not hono/compress: it pipes the body through a web CompressionStream, one zlib call per chunk React wrote,
 * which cost a fifth of the home page's throughput (198–217 req/s with gzip against 252–278 without, measured).
 * Every dynamic body here is small and complete before it is sent (pages are collected whole by
 * app/entry.server.tsx), so it is read once and compressed in one synchronous call: handing a page to libuv's thread
 * pool and back cost more CPU (0.2 ms on a 2-core machine) than compressing a shopper's page with zstd does.
 */
export function compressResponses(): MiddlewareHandler<{ Variables: CompressionVariables }> {
  return async (c, next) => {
    await next();
    const response = c.res;
    // Headers first, the body last: asking a response for its body makes it a full web Response (a stream), which a
    // client that takes no compression would then be sent through.
    if (c.req.method === "HEAD" || response.status === 206) return;
    if (response.headers.has("Content-Encoding") || response.headers.has("Transfer-Encoding")) return;
    if (!COMPRESSIBLE_CONTENT_TYPE_REGEX.test(response.headers.get("Content-Type") ?? "")) return;
    if (/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(response.headers.get("Cache-Control") ?? "")) return;
    const length = response.headers.get("Content-Length");
    if (length !== null && Number(length) < THRESHOLD_BYTES) return;

    // Whether or not this answer is compressed, another client's answer to the same URL may differ.
    const vary = response.headers.get("Vary");
    if (vary !== "*" && !/(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary ?? "")) {
      response.headers.set("Vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
    }
    const encoding = chooseEncoding(c.req.header("Accept-Encoding"));
    if (!encoding) return;
    const body = await readBody(response);
    if (!body) return;

    const headers = new Headers(response.headers);
    let sent: Uint8Array<ArrayBuffer> = body;
    if (body.byteLength >= THRESHOLD_BYTES) {
      // zlib answers with a Buffer over a plain ArrayBuffer (a Uint8Array, as Response wants).
      sent = ENCODERS[encoding](body, c.get("compressFor") ?? "one") as Uint8Array<ArrayBuffer>;
      headers.set("Content-Encoding", encoding);
      headers.set("Content-Length", String(sent.byteLength));
      const etag = headers.get("ETag");
      if (etag && !etag.startsWith("W/")) headers.set("ETag", `W/${etag}`);
    }
    // Hono merges the old answer's headers into a new one (and re-wraps its body as a stream); clearing it first
    // keeps exactly these headers and lets the node adapter write the buffer in one go.
    c.res = undefined;
    c.res = new Response(sent, { status: response.status, headers });
  };
}

/**
 * zstd, gzip or deflate, whichever the client weighs higher (in that order on a tie), honouring q=0 and "*"; zstd
 * only when named, as "*" is older than it.
 */
function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepts = parseAccept(acceptEncoding);
  const wildcard = accepts.find((accept) => accept.type === "*")?.q ?? 0;
  let best: { encoding: Encoding; q: number } | undefined;
  for (const encoding of ["zstd", "gzip", "deflate"] as const) {
    const q =
      accepts.find((accept) => accept.type.toLowerCase() === encoding)?.q ?? (encoding === "zstd" ? 0 : wildcard);
    if (q > 0 && (!best || q > best.q)) best = { encoding, q };
  }
  return best?.encoding;
}
