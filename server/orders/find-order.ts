// "Find an order" for a guest: an order number and e-mail answered with the order's signed link, wrong tries limited so
// numbers cannot be guessed.

import { tooManyRequests, type RateLimiter, type RateLimitRule } from "#server/rate-limits/rate-limiter";
import type { OrderService } from "./order-service";

const HOUR = 60 * 60 * 1000;

/** Wrong "Find an order" tries allowed per hour: plenty for a shopper's typos, far too few to guess numbers. */
export interface FindOrderLimits {
  perSession: number;
  perAddress: number;
}

export const DEFAULT_FIND_ORDER_LIMITS: FindOrderLimits = { perSession: 10, perAddress: 10 };

/** The 429's sentence, said before the wait. */
export const FIND_ORDER_TOO_MANY = "Too many tries to find an order.";

/**
 * "Find an order" (number and receipt e-mail) for guests, under a limit like the gift card number's: each try is
 * counted in advance (so ten sent at once are ten) per session and per client address, refused with 429 past the
 * limit, and given back when it found the order: only wrong tries use up the allowance.
 */
export function createGuestOrderFinder(
  orders: Pick<OrderService, "findGuestOrderPath">,
  rateLimiter: RateLimiter,
  limits: FindOrderLimits = DEFAULT_FIND_ORDER_LIMITS,
) {
  const rules = {
    session: { name: "find-order:session", limit: limits.perSession, windowMs: HOUR },
    address: { name: "find-order:ip", limit: limits.perAddress, windowMs: HOUR },
  } satisfies Record<string, RateLimitRule>;

  return {
    /** The order's signed path, or null when no order has this number and e-mail; throws the 429 past the limit. */
    async find(
      orderNumber: string,
      email: string,
      finder: { sessionId: string | null; ip: string },
    ): Promise<string | null> {
      const hits = [
        ...(finder.sessionId ? [{ rule: rules.session, subject: finder.sessionId }] : []),
        { rule: rules.address, subject: finder.ip },
      ];
      const refused = (await rateLimiter.hitAll(hits)).filter((result) => !result.allowed);
      if (refused.length > 0)
        throw tooManyRequests(
          "TOO_MANY_ATTEMPTS",
          FIND_ORDER_TOO_MANY,
          Math.max(...refused.map((result) => result.retryAfterMs)),
        );
      const path = await orders.findGuestOrderPath(orderNumber, email);
      if (path) for (const hit of hits) await rateLimiter.refund(hit.rule, hit.subject);
      return path;
    },
  };
}

export type GuestOrderFinder = ReturnType<typeof createGuestOrderFinder>;
