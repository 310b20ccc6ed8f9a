// The guest page cache: a guest's home, product and search pages kept as bytes per catalogue version and sent under a
// CSP of hashes, so a crowd of guests costs no rendering.

import { createHash } from "node:crypto";
import { gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "#server/logger";
import type { CompressionVariables } from "./compress";
import { SESSION_COOKIE } from "./shopper";

/** Distinct pages (address × host × scheme × encoding) kept; past it the cache starts over. */
const MAX_ENTRIES = 500;
/** The catalogue's pages a guest sees the same as every other guest: home, product pages, search, departments. */
const PUBLIC_PAGE = /^\/(?:products\/[^/]+|search|departments(?:\/[^/]+)?)?$/;

interface CachedPage {
  status: number;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer>;
}

/**
 * A guest's home, product and search pages are the same for every guest until the catalogue changes, so each is
 * rendered and compressed once per catalogue version (and host, scheme and encoding) and then sent as bytes: React,
 * the database and zlib are skipped, the larger part of what such a page cost (docs/scaling.md has the figures).
 *
 * A shopper with a session cookie always gets a fresh render (their name, their basket). The first render's inline
 * scripts and stylesheet carry a per-response nonce, which a stored page cannot have: the stored copy is sent under
 * a Content-Security-Policy that allows exactly those inline elements by their SHA-256 hashes instead, so nothing
 * else inline can run on it (CSP3: a nonce nobody lists is worth nothing, and no 'unsafe-inline').
 */
export function guestPageCache({
  catalogueVersion,
  logger,
}: {
  catalogueVersion: () => Promise<bigint>;
  logger: Logger;
}): MiddlewareHandler<{ Variables: CompressionVariables }> {
  const pages = new Map<string, CachedPage>();
  let cachedVersion: bigint | undefined;
  const versionOrNothing = () =>
    catalogueVersion().catch((error: unknown) => {
      logger.warn(
        { err: error },
        "guest pages: the catalogue's version could not be read, so the page is rendered afresh",
      );
      return undefined;
    });

  return async (c, next) => {
    if (c.req.method !== "GET" || !PUBLIC_PAGE.test(c.req.path) || hasSessionCookie(c.req.header("cookie")))
      return next();
    // Without the catalogue's version (the database is away) the page renders as usual and says what it can.
    const version = await versionOrNothing();
    if (version === undefined) return next();
    if (version !== cachedVersion) {
      pages.clear();
      cachedVersion = version;
    }
    const key = `${c.req.url}\n${c.req.header("host")}\n${c.req.header("x-forwarded-proto")}\n${c.req.header("accept-encoding")}`;
    const cached = pages.get(key);
    if (cached) {
      c.res = new Response(cached.body, { status: cached.status, headers: cached.headers });
      return;
    }
    // Compressed once for every guest who asks next: smaller bytes are worth more CPU here.
    c.set("compressFor", "many");
    await next();
    const response = c.res;
    if (
      response.status !== 200 ||
      !response.headers.get("content-type")?.startsWith("text/html") ||
      response.headers.has("set-cookie")
    )
      return;
    const body = new Uint8Array(await response.clone().arrayBuffer());
    const policy = response.headers.get("content-security-policy");
    const hashed = policy ? policyByHashes(policy, decode(body, response.headers.get("content-encoding"))) : undefined;
    if (policy && !hashed) return;
    // A page rendered while the catalogue changed is sent once, never kept.
    if ((await versionOrNothing()) !== version) return;
    const headers = [...response.headers].map(([name, value]): [string, string] => [
      name,
      name === "content-security-policy" ? hashed! : value,
    ]);
    if (pages.size >= MAX_ENTRIES) pages.clear();
    pages.set(key, { status: response.status, headers, body });
  };
}

function hasSessionCookie(cookie: string | undefined): boolean {
  return cookie !== undefined && cookie.includes(`${SESSION_COOKIE}=`);
}

function decode(body: Uint8Array, encoding: string | null): string {
  const plain =
    encoding === "zstd"
      ? zstdDecompressSync(body)
      : encoding === "gzip"
        ? gunzipSync(body)
        : encoding === "deflate"
          ? inflateSync(body)
          : body;
  return Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString("utf8");
}

/**
 * The page's policy with its nonce replaced by the hashes of the page's inline scripts (in script-src) and inline
 * styles (in style-src). Undefined when the policy has no nonce to replace or the page has inline code a hash
 * cannot cover (an event-handler attribute): such a page is not kept.
 */
export function policyByHashes(policy: string, html: string): string | undefined {
  const nonce = /'nonce-[^']+'/.exec(policy)?.[0];
  if (!nonce || /\son[a-z]+\s*=/i.test(html.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, "")))
    return undefined;
  const hashes = (pattern: RegExp) =>
    [
      ...new Set(
        [...html.matchAll(pattern)].map(
          (match) => `'sha256-${createHash("sha256").update(match[1]!, "utf8").digest("base64")}'`,
        ),
      ),
    ].join(" ");
  const scripts = hashes(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi);
  const styles = hashes(/<style[^>]*>([\s\S]*?)<\/style>/gi);
  return policy
    .split(";")
    .map((directive) => {
      const name = directive.trim().split(/\s+/)[0];
      const replacement = name === "script-src" ? scripts : name === "style-src" ? styles : "";
      return directive
        .replace(nonce, replacement)
        .replace(/\s+$/, "")
        .replace(/\s{2,}/g, " ");
    })
    .join(";");
}
