// Accounts and their passwords: registering, signing in (argon2id, with the attempts limited per address and e-mail),
// and the e-mail confirmation.

import { hash, verify } from "@node-rs/argon2";
import { AppError } from "#shared/errors";
import type { DB, Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import { issueToken } from "./account-tokens";
import type { SessionUser } from "#server/sessions/session-service";
import { assertAcceptablePassword } from "./password-policy";
import {
  tooManyRequests,
  type RateLimiter,
  type RateLimitResult,
  type RateLimitRule,
} from "#server/rate-limits/rate-limiter";

/**
 * argon2id with OWASP's minimum recommended parameters (19 MiB, 2 passes, 1 lane): about 12 ms a verify on a
 * 2-core machine. See docs/decisions/005-accounts-and-sessions.md.
 */
// algorithm 2 is Argon2id (the package exports it as a const enum, which isolated modules cannot read).
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** A new password's stored form (argon2id, the parameters above). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Whether a password opens a stored hash (false for a malformed hash). */
export function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch((error: unknown) => {
    // A stored hash argon2 cannot decode (InvalidArg: truncated, or another scheme's) opens nothing, as a wrong password
    // would not; anything else (the native module failing) is not an answer about the password.
    if (error instanceof Error && (error as { code?: unknown }).code === "InvalidArg") return false;
    throw error;
  });
}

/** Verified against when the e-mail is unknown, so both failures take the same time. */
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$aTCgu222qz8RVREgN9F51w$YhOKUdRPiyDw/QVeu8yRlTQqWel7qEGjphGo3mvO17c";

const FIFTEEN_MINUTES = 15 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
export const DEFAULT_ATTEMPTS_PER_IP = 50;
/** Failed attempts one address may make at one e-mail's password in 15 minutes. */
export const FAILURES_PER_EMAIL_AND_IP = 10;

/**
 * Failed attempts at one e-mail's password from everywhere, in windows that grow: past each, an address that has
 * itself failed for that e-mail waits for the end of the longest window exceeded (15 minutes, then an hour, then a day).
 */
export const FAILURES_PER_EMAIL: readonly RateLimitRule[] = [
  { name: "auth:email", limit: 30, windowMs: FIFTEEN_MINUTES },
  { name: "auth:email-hour", limit: 100, windowMs: HOUR },
  { name: "auth:email-day", limit: 300, windowMs: 24 * HOUR },
];

/** One message for a wrong password and an unknown e-mail: nobody can probe which addresses have accounts. */
export const WRONG_CREDENTIALS = "The e-mail address or password is not right. Please check them and try again.";

/** How long the welcome e-mail's confirmation link works. */
export const VERIFICATION_VALID_MS = 7 * 24 * HOUR;

/**
 * Addresses that signed in to (or registered) an account in the last day: the owner's, never refused for that account
 * by failures elsewhere, however many (a typo there included).
 */
const SUCCEEDED_FROM: RateLimitRule = { name: "auth:succeeded", limit: Number.MAX_SAFE_INTEGER, windowMs: 24 * HOUR };

export function createAccountService(
  db: DB,
  rateLimiter: RateLimiter,
  outbox: EmailOutbox,
  { attemptsPerIp = DEFAULT_ATTEMPTS_PER_IP } = {},
) {
  const perIp: RateLimitRule = { name: "auth:ip", limit: attemptsPerIp, windowMs: FIFTEEN_MINUTES };
  const perEmailAndIp: RateLimitRule = {
    name: "auth:email-ip",
    limit: FAILURES_PER_EMAIL_AND_IP,
    windowMs: FIFTEEN_MINUTES,
  };
  const refuse = (results: RateLimitResult[]) =>
    tooManyRequests(
      "TOO_MANY_ATTEMPTS",
      "Too many attempts.",
      Math.max(...results.filter((result) => !result.allowed).map((result) => result.retryAfterMs)),
    );

  /**
   * Runs one sign-in or registration within the limits (OWASP's authentication cheat sheet): every attempt counts
   * against the address; only failures count against the e-mail, so that guessing a password from one place cannot
   * lock its owner out from another. The attempt is counted as a failure before it runs (concurrent guesses cannot
   * slip past the count) and given back when it succeeds. An address that has not failed for this e-mail is never
   * refused for it, whatever others did, and neither is one that has succeeded for it in the last day, though it
   * has failed too: the owner can always sign in from where they signed in before.
   */
  async function withinLimits<T>(email: string, ip: string, attempt: () => Promise<T>): Promise<T> {
    const byIp = await rateLimiter.hit(perIp, ip);
    if (!byIp.allowed) throw refuse([byIp]);
    const emailAndIp = `${email} ${ip}`;
    const [byEmailAndIp, ...byEmail] = await Promise.all([
      rateLimiter.hit(perEmailAndIp, emailAndIp),
      ...FAILURES_PER_EMAIL.map((rule) => rateLimiter.hit(rule, email)),
    ]);
    if (!byEmailAndIp.allowed) throw refuse([byEmailAndIp]);
    const failedHereBefore = byEmailAndIp.count > 1;
    if (
      failedHereBefore &&
      byEmail.some((result) => !result.allowed) &&
      !(await rateLimiter.hasHit(SUCCEEDED_FROM, emailAndIp))
    )
      throw refuse(byEmail);
    const result = await attempt();
    await Promise.all([
      rateLimiter.refund(perEmailAndIp, emailAndIp),
      ...FAILURES_PER_EMAIL.map((rule) => rateLimiter.refund(rule, email)),
      rateLimiter.hit(SUCCEEDED_FROM, emailAndIp),
    ]);
    return result;
  }

  return {
    /** Creates an account. The e-mail is already normalised (trimmed, lower case) by the credentials schema. */
    register(email: string, password: string, ip: string): Promise<SessionUser> {
      return withinLimits(email, ip, async () => {
        await assertAcceptablePassword(password, email);
        const passwordHash = await hashPassword(password);
        // The account and its welcome e-mail (with the confirmation link) are written together, or neither is.
        const row = await db.transaction().execute(async (trx) => {
          const inserted = await trx
            .insertInto("users")
            .values({ email, password_hash: passwordHash })
            .onConflict((conflict) => conflict.column("email").doNothing())
            .returning(["id", "email"])
            .executeTakeFirst();
          if (inserted)
            await outbox.enqueueWelcome(
              trx,
              inserted.email,
              await issueToken(trx, inserted.id, "email-verification", VERIFICATION_VALID_MS),
            );
          return inserted;
        });
        if (!row)
          throw new AppError("EMAIL_TAKEN", "An account with this e-mail address already exists. Sign in instead.");
        return { ...row, isEmailVerified: false };
      });
    },

    /** Sets the account's "E-mail me about my basket and offers" preference. */
    async setBasketReminders(writer: Writer, userId: string, on: boolean): Promise<void> {
      await writer.updateTable("users").set({ basket_reminders: on }).where("id", "=", userId).execute();
    },

    /** The account these credentials open, or the one wrong-credentials error. */
    verifyCredentials(email: string, password: string, ip: string): Promise<SessionUser> {
      return withinLimits(email, ip, async () => {
        const row = await db
          .selectFrom("users")
          .leftJoin("operators", "operators.user_id", "users.id")
          .select([
            "users.id",
            "users.email",
            "users.password_hash",
            "users.email_verified_at",
            "operators.user_id as operator_id",
          ])
          .where("users.email", "=", email)
          .executeTakeFirst();
        const matches = await passwordMatches(row?.password_hash ?? DUMMY_HASH, password);
        if (!row || !matches) throw new AppError("WRONG_CREDENTIALS", WRONG_CREDENTIALS);
        return {
          id: row.id,
          email: row.email,
          isEmailVerified: row.email_verified_at !== null,
          isOperator: row.operator_id !== null,
        };
      });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
