// Whether a request came over HTTPS: from PUBLIC_URL when set, else from the socket or the trusted proxy's header.

import type { Context } from "hono";

export interface RequestSchemeOptions {
  /** The shop's public origin (PUBLIC_URL): when set, its scheme is the answer for every request. */
  publicUrl?: URL;
  /** Proxies the operator runs in front of the shop: with any, their X-Forwarded-Proto says how the browser came. */
  trustedProxyHops: number;
}

/**
 * How the browser reached the shop: what decides Secure cookies, HSTS and the origin a form must come from. Not
 * NODE_ENV: a production build served over plain HTTP on a LAN address must still keep its cookies, and one behind a
 * TLS proxy must mark them. X-Forwarded-Proto's first value is read as Express reads it; proxies set, not append, it.
 */
export function requestScheme(c: Context, { publicUrl, trustedProxyHops }: RequestSchemeOptions): "https" | "http" {
  if (publicUrl) return publicUrl.protocol === "https:" ? "https" : "http";
  const forwarded =
    trustedProxyHops > 0 ? c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
  if (forwarded === "https" || forwarded === "http") return forwarded;
  return new URL(c.req.url).protocol === "https:" ? "https" : "http";
}

export function isHttpsRequest(c: Context, options: RequestSchemeOptions): boolean {
  return requestScheme(c, options) === "https";
}
