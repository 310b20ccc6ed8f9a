// Requests with methods the shop never uses, answered cheaply and limited per client, so probing costs the shop next to
// nothing.

import type { MiddlewareHandler } from "hono";
import { AppError } from "#shared/errors";
import type { AppEnv } from "./app-env";

/** The methods the shop's pages and forms use; anything else is at best a 405. */
const SHOP_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST"]);

export interface RefusedMethodLimits {
  /** 405 answers one address may be given per window before its odd methods are refused outright. */
  perAddress: number;
  windowMs: number;
  /** Addresses remembered per window; past it every new address's odd methods are refused (no shopper sends them). */
  maxAddresses: number;
}

export const DEFAULT_REFUSED_METHOD_LIMITS: RefusedMethodLimits = {
  perAddress: 60,
  windowMs: 60_000,
  maxAddresses: 10_000,
};

/**
 * A client probing with PROPFIND, OPTIONS or PUT gets a 405 from every page, each rendered by React Router. Past
 * `perAddress` such answers in a window, its requests with a method the shop does not use are answered 429 at once.
 * Counted in this process's memory, in a map cleared every window and bounded in size: a probe is refused per
 * instance, and nothing about it reaches the database.
 */
export function limitRefusedMethods(
  limits: RefusedMethodLimits = DEFAULT_REFUSED_METHOD_LIMITS,
): MiddlewareHandler<AppEnv> {
  let windowStarted = Date.now();
  let refusals = new Map<string, number>();
  return async (c, next) => {
    const now = Date.now();
    if (now - windowStarted >= limits.windowMs) {
      windowStarted = now;
      refusals = new Map();
    }
    const address = c.get("clientIp");
    const count = refusals.get(address);
    const isOverLimit = count === undefined ? refusals.size >= limits.maxAddresses : count >= limits.perAddress;
    if (!SHOP_METHODS.has(c.req.method) && isOverLimit) {
      const seconds = Math.max(1, Math.ceil((windowStarted + limits.windowMs - now) / 1000));
      throw new AppError(
        "TOO_MANY_ATTEMPTS",
        "Too many requests this shop does not take have come from your network. Please wait a minute and try again.",
        { retryAfterSeconds: seconds },
      );
    }
    await next();
    if (c.res.status === 405 && (count !== undefined || refusals.size < limits.maxAddresses))
      refusals.set(address, (refusals.get(address) ?? 0) + 1);
  };
}
