import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";

/**
 * The address a request came from, for rate limits. Behind a proxy that the operator trusts (TRUST_PROXY=true)
 * it is the first X-Forwarded-For entry; otherwise the socket's peer, which a client cannot forge.
 */
export function clientIp({ trustProxy }: { trustProxy: boolean }): MiddlewareHandler<{ Variables: { clientIp: string } }> {
  return async (c, next) => {
    const forwarded = trustProxy ? c.req.header("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
    c.set("clientIp", forwarded || peerAddress(c) || "unknown");
    await next();
  };
}

function peerAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // In-process requests (tests) have no socket.
    return undefined;
  }
}
