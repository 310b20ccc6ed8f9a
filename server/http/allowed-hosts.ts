// Which Host headers the shop answers without PUBLIC_URL, so links it builds from the Host can never name somebody
// else's site.

import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { AppError } from "#shared/errors";

/**
 * Without PUBLIC_URL the shop names itself by each request's Host (the sitemap, robots.txt, canonical links), so a
 * Host is answered only when it cannot be somebody else's name: an IP literal (a LAN trial at
 * http://192.168.1.20:3000), localhost, or one of ALLOWED_HOSTS. Any other is answered 421 Misdirected Request, as
 * RFC 9110 has a server answer a request for an origin it does not serve.
 */
export function allowedHostsOnly(allowedHosts: readonly string[]): MiddlewareHandler {
  const allowed = new Set(allowedHosts.map((host) => host.toLowerCase()));
  return async (c, next) => {
    const host = hostName(c.req.header("host") ?? new URL(c.req.url).host);
    if (host === null || !(isIP(host) !== 0 || host === "localhost" || allowed.has(host))) {
      throw new AppError("MISDIRECTED_REQUEST", "This shop does not answer to that host name.");
    }
    await next();
  };
}

/** The host name of a Host header, lower case, without its port or an IPv6 literal's brackets; null when malformed. */
function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  const plain = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value);
  return plain ? plain[1]!.replace(/\.$/, "") : null;
}
