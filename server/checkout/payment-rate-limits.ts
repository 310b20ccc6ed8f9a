// How many payment attempts a shopper may make: enough to pay, far too few to test stolen card numbers.

import { tooManyRequests, type RateLimiter, type RateLimitRule } from "#server/rate-limits/rate-limiter";

const TEN_MINUTES = 10 * 60 * 1000;

/** Payment attempts allowed per ten minutes: generous for a shopper, far too few for testing stolen card numbers. */
export interface PaymentLimits {
  /** POST /payments/create per session, and per client address (which many shoppers may share). */
  createsPerSession: number;
  createsPerIp: number;
  /** Confirmations recorded (POST /orders/record, the return page) per session and per client address. */
  recordsPerSession: number;
  recordsPerIp: number;
}

export const DEFAULT_PAYMENT_LIMITS: PaymentLimits = {
  createsPerSession: 30,
  createsPerIp: 150,
  recordsPerSession: 30,
  recordsPerIp: 150,
};

/**
 * Rate limits on the payment steps against card testing (trying many card numbers through the shop's intents),
 * counted in the database like sign-in's so they hold across instances, and answered with the same 429.
 */
export function createPaymentRateLimits(
  rateLimiter: RateLimiter,
  limits: PaymentLimits = DEFAULT_PAYMENT_LIMITS,
  /** The live holds (payments holding stock or a code) of a session and an address: server/holds/. */
  liveHolds?: (holder: { sessionId: string | null; ip: string }) => Promise<{ session: number; address: number }>,
) {
  const rules = {
    create: [
      { name: "payment-create:session", limit: limits.createsPerSession, windowMs: TEN_MINUTES },
      { name: "payment-create:ip", limit: limits.createsPerIp, windowMs: TEN_MINUTES },
    ],
    record: [
      { name: "payment-record:session", limit: limits.recordsPerSession, windowMs: TEN_MINUTES },
      { name: "payment-record:ip", limit: limits.recordsPerIp, windowMs: TEN_MINUTES },
    ],
  } satisfies Record<string, [RateLimitRule, RateLimitRule]>;

  return {
    /** Counts one attempt; throws the 429 when the session or the address is over its limit. */
    async check(step: keyof typeof rules, sessionId: string | null, ip: string): Promise<void> {
      const [perSession, perIp] = rules[step];
      const results = await rateLimiter.hitAll([
        ...(sessionId ? [{ rule: perSession, subject: sessionId }] : []),
        { rule: perIp, subject: ip },
      ]);
      const refused = results.filter((result) => !result.allowed);
      if (refused.length > 0) {
        throw tooManyRequests(
          "TOO_MANY_ATTEMPTS",
          "Too many payment attempts.",
          Math.max(...refused.map((result) => result.retryAfterMs)),
        );
      }
      // Payments still holding stock or a code count too: attempts spread past the window cannot pile up holds.
      if (step === "create" && liveHolds) {
        const live = await liveHolds({ sessionId, ip });
        if (live.session >= perSession.limit || live.address >= perIp.limit)
          throw tooManyRequests("TOO_MANY_ATTEMPTS", "Too many payment attempts.", 60_000);
      }
    },
  };
}

export type PaymentRateLimits = ReturnType<typeof createPaymentRateLimits>;
