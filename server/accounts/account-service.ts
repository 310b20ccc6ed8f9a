import { hash, verify } from "@node-rs/argon2";
import { AppError } from "../../shared/errors";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../shared/account";
import type { DB } from "../db/client";
import type { SessionUser } from "../sessions/session-service";
import { tooManyRequests, type RateLimiter, type RateLimitRule } from "./rate-limiter";

/**
 * argon2id with OWASP's minimum recommended parameters (19 MiB, 2 passes, 1 lane): about 12 ms a verify on these
 * machines. See docs/decisions/005-accounts.md.
 */
// algorithm 2 is Argon2id (the package exports it as a const enum, which isolated modules cannot read).
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Verified against when the e-mail is unknown, so both failures take the same time. */
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$aTCgu222qz8RVREgN9F51w$YhOKUdRPiyDw/QVeu8yRlTQqWel7qEGjphGo3mvO17c";

const FIFTEEN_MINUTES = 15 * 60 * 1000;
const ATTEMPTS_PER_EMAIL = 10;
export const DEFAULT_ATTEMPTS_PER_IP = 50;

/** One message for a wrong password and an unknown e-mail: nobody can probe which addresses have accounts. */
export const WRONG_CREDENTIALS = "The e-mail address or password is not right. Please check them and try again.";

export function createAccountService(db: DB, rateLimiter: RateLimiter, { attemptsPerIp = DEFAULT_ATTEMPTS_PER_IP } = {}) {
  const limits = {
    perEmail: { name: "auth:email", limit: ATTEMPTS_PER_EMAIL, windowMs: FIFTEEN_MINUTES },
    perIp: { name: "auth:ip", limit: attemptsPerIp, windowMs: FIFTEEN_MINUTES },
  } satisfies Record<string, RateLimitRule>;

  /** Counts an attempt against the e-mail and the address it came from; refuses past either limit. */
  async function guardAttempt(email: string, ip: string) {
    const [byIp, byEmail] = await Promise.all([rateLimiter.hit(limits.perIp, ip), rateLimiter.hit(limits.perEmail, email)]);
    const refused = [byIp, byEmail].filter((result) => !result.allowed);
    if (refused.length > 0) {
      throw tooManyRequests("TOO_MANY_ATTEMPTS", "Too many attempts.", Math.max(...refused.map((result) => result.retryAfterMs)));
    }
  }

  return {
    /** Creates an account. The e-mail is already normalised (trimmed, lower case) by the credentials schema. */
    async register(email: string, password: string, ip: string): Promise<SessionUser> {
      await guardAttempt(email, ip);
      if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
        throw new AppError("INVALID_PASSWORD", `Your password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`);
      }
      const passwordHash = await hash(password, ARGON2_OPTIONS);
      const row = await db
        .insertInto("users")
        .values({ email, password_hash: passwordHash })
        .onConflict((conflict) => conflict.column("email").doNothing())
        .returning(["id", "email"])
        .executeTakeFirst();
      if (!row) throw new AppError("EMAIL_TAKEN", "An account with this e-mail address already exists. Sign in instead.");
      return row;
    },

    /** The account these credentials open, or the one wrong-credentials error. */
    async verifyCredentials(email: string, password: string, ip: string): Promise<SessionUser> {
      await guardAttempt(email, ip);
      const row = await db.selectFrom("users").select(["id", "email", "password_hash"]).where("email", "=", email).executeTakeFirst();
      const matches = await verify(row?.password_hash ?? DUMMY_HASH, password).catch(() => false);
      if (!row || !matches) throw new AppError("WRONG_CREDENTIALS", WRONG_CREDENTIALS);
      return { id: row.id, email: row.email };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
