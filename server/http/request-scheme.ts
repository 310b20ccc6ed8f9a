import type { Context } from "hono";

export interface RequestSchemeOptions {
  /** The shop's public origin (PUBLIC_URL): when set, its scheme is the answer for every request. */
  publicUrl?: URL;
  /** Behind the operator's own proxy: its X-Forwarded-Proto says how the browser reached it. */
  trustProxy: boolean;
}

/**
 * Whether the browser reached the shop over HTTPS: what decides Secure cookies and HSTS. Not NODE_ENV: a production
 * build served over plain HTTP on a LAN address must still keep its cookies, and one behind a TLS proxy must mark them.
 */
export function isHttpsRequest(c: Context, { publicUrl, trustProxy }: RequestSchemeOptions): boolean {
  if (publicUrl) return publicUrl.protocol === "https:";
  const forwarded = trustProxy ? c.req.header("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() : undefined;
  if (forwarded) return forwarded === "https";
  return new URL(c.req.url).protocol === "https:";
}
