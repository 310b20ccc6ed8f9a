import { createHash, randomBytes } from "node:crypto";

/**
 * The secrets a browser or an e-mailed link carries (session cookies, reset and confirmation links): 32 random bytes,
 * base64url. Only their SHA-256 is stored, so a copy of the database opens no session and no link.
 */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Tokens we issue are 43 base64url characters; anything else is garbled and not worth a query. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** SHA-256, base64url. node:crypto's hash is synchronous: for inputs this small Web Crypto's digest costs twenty times as much. */
export function sha256Base64url(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64url");
}

/**
 * The same hash, by Web Crypto on libuv's thread pool: the session cookie's, at the start of every request. The hop
 * costs more CPU than the hash, and is kept for what it does to the order of work: a new request's first statement
 * waits behind the next statements of the requests already under way, which on PGlite share its one connection. With
 * the synchronous hash, 200 hurried shoppers on PGlite had 404–448 requests of about 12,900 wait past 10 s against
 * 160 with this one (2026-11-24; a turn of the event loop instead of the hop did not help: 448). Serving PGlite's
 * connection to the oldest request first would be the deliberate form of this.
 */
export async function sha256Base64urlOffThread(text: string): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toString("base64url");
}
