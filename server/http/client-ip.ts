// The client's address for rate limits: the socket's peer, or behind the operator's trusted proxies the entry the
// outermost appended, never a value a client can forge.

import { isIP, isIPv6 } from "node:net";
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";

/**
 * The address a request came from, as the key of its rate limits. Without trusted proxies it is the socket's peer,
 * which a client cannot forge. Behind `trustedProxyHops` proxies the operator runs, it is the entry the outermost of
 * them appended to X-Forwarded-For: the hops-th from the right, as Express's numeric `trust proxy` reads it. Entries
 * further left were written by the client and say whatever it likes (taking the left-most let one client pass a
 * 50-per-address limit 60 times out of 60).
 */
export function clientIp({
  trustedProxyHops,
}: {
  trustedProxyHops: number;
}): MiddlewareHandler<{ Variables: { clientIp: string } }> {
  return async (c, next) => {
    const peer = socketPeerAddress(c);
    const address =
      trustedProxyHops > 0 ? forwardedAddress(c.req.header("x-forwarded-for"), trustedProxyHops) : undefined;
    c.set("clientIp", rateLimitKey(address ?? peer) ?? "unknown");
    await next();
  };
}

/**
 * The address the trusted proxies vouch for: the hops-th entry from the right. A shorter list means fewer proxies
 * than configured stood in the way, so its left-most entry is the nearest the chain knows. Not an address (a
 * misconfigured proxy): none, and the socket's peer is used.
 */
function forwardedAddress(header: string | undefined, hops: number): string | undefined {
  const entries = (header ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  const entry = entries[Math.max(0, entries.length - hops)];
  return entry && isIP(entry) ? entry : undefined;
}

/**
 * One key per client: an IPv4 address as is; an IPv4-mapped IPv6 address (::ffff:a.b.c.d, how a dual-stack socket
 * reports IPv4 peers) as its IPv4 address; any other IPv6 address by its /64, since one subscriber is routinely
 * given a whole /64 and could otherwise take a fresh address, and a fresh limit, for every attempt.
 */
export function rateLimitKey(address: string | undefined): string | undefined {
  if (!address || !isIPv6(address)) return address || undefined;
  const groups = ipv6Groups(address);
  const isIPv4Mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (isIPv4Mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an address that node:net's isIPv6 accepted (zone id, "::" and dotted tail allowed). */
function ipv6Groups(address: string): number[] {
  const withoutZone = address.split("%")[0]!;
  const dottedTail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(withoutZone);
  const hex = dottedTail
    ? withoutZone.slice(0, dottedTail.index) +
      [1, 3].map((i) => ((Number(dottedTail[i]) << 8) | Number(dottedTail[i + 1])).toString(16)).join(":")
    : withoutZone;
  const [head = "", tail] = hex.split("::");
  const parse = (part: string) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const headGroups = parse(head);
  const tailGroups = tail === undefined ? [] : parse(tail);
  return [...headGroups, ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0), ...tailGroups];
}

/**
 * The socket's peer, as @hono/node-server's bindings carry it; none for a request handed over in process (the built-in
 * processor's calls and webhooks, tests' `app.request`). Read here rather than by its `getConnInfo`, which throws a
 * TypeError for those, and an error's stack costs more than the rest of this middleware.
 */
export function socketPeerAddress(c: Context): string | undefined {
  const bindings = c.env as { incoming?: IncomingMessage; server?: { incoming?: IncomingMessage } } | undefined;
  return (bindings?.server ?? bindings)?.incoming?.socket.remoteAddress;
}
