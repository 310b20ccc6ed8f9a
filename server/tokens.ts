// The secrets browsers and e-mailed links carry: 32 random bytes, of which only the SHA-256 is stored.

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
