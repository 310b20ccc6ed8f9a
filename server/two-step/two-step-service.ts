/**
 * Two-step verification: an authenticator app's code (TOTP) or a one-time recovery code after the password. The one
 * writer of two_step_accounts, two_step_recovery_codes, two_step_challenges, console_devices and two_step_policy.
 * A sign-in waiting for its code is a challenge row, not a session: it opens nothing until the code is right.
 */

import { randomBytes } from "node:crypto";
import { parse as parseCookies, serialize as serializeCookie } from "hono/utils/cookie";
import { sql } from "kysely";
import { AppError } from "#shared/errors";
import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { SessionUser } from "#server/sessions/session-service";
import { recordAudit, STARTUP_ACTOR, type Actor } from "#server/audit/audit-log";
import { newToken, sha256Base64url, TOKEN_PATTERN } from "#server/tokens";
import { qrCodePath } from "./qr-code";
import { decodeBase32, matchingStep, newTotpSecret, otpauthUri } from "./totp";

export const RECOVERY_CODE_COUNT = 10;
export const WRONG_CODES_BEFORE_LOCK = 5;
export const LOCK_MINUTES = 15;
/** How long the code may take after the password: the time to find the phone, not an afternoon. */
const CHALLENGE_MINUTES = 10;
/** The browser's own mark for the new-device e-mail: only its hash is stored, per account that signed in with it. */
const DEVICE_COOKIE = "sf_device";
/** Browsers cap a cookie's life at 400 days. */
const DEVICE_COOKIE_DAYS = 400;
const RECOVERY_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

const EXPIRED = "Your sign-in took too long or was already used. Please enter your e-mail and password again.";
const WRONG_CODE = "That code is not right. Check your authenticator app and try again.";
const USED_CODE = "That code has already been used. Wait for the next one in your authenticator app.";
const WRONG_RECOVERY_CODE = "That recovery code is not right, or has already been used.";
const LOCKED = `Too many wrong codes. Sign-in is locked for ${LOCK_MINUTES} minutes.`;

/** The one check of who may change the staff rule and reset another operator's two-step: the shop's Owners. */
export function mayManageTwoStep(user: Pick<SessionUser, "isOperator" | "console"> | null | undefined): boolean {
  return user?.isOperator === true && user.console?.role === "owner";
}

/** A recovery code as shown: ten characters in two groups, without look-alikes (0/o, 1/l). About 50 bits. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const characters = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join("");
  return `${characters.slice(0, 5)}-${characters.slice(5)}`;
}

/** As typed: case, spaces and the hyphen do not matter. */
const hashRecoveryCode = (code: string) => sha256Base64url(code.toLowerCase().replace(/[\s-]/g, ""));

export type TwoStepAnswer = { code: string } | { recoveryCode: string };

export interface TwoStepStatus {
  isOn: boolean;
  recoveryCodesLeft: number;
  /** A setup begun and not yet confirmed: the secret to scan or type, and the address the QR code carries. */
  pending: { secret: string; uri: string; qr: { size: number; path: string } } | null;
}

export interface NewSignInFacts {
  ip: string;
  userAgent: string;
}

/** The authenticator app lists the account under the shop's own name (the issuer), as the shop's settings say it. */
function pendingSetup(secret: string, accountEmail: string, issuer: string) {
  const uri = otpauthUri({ secret, account: accountEmail, issuer });
  return { secret, uri, qr: qrCodePath(uri) };
}

export function createTwoStepService({
  db,
  email,
  livemode,
  shopName,
}: {
  db: DB;
  email: EmailOutbox;
  livemode: boolean;
  shopName: () => Promise<string>;
}) {
  async function readPolicy() {
    const row = await db.selectFrom("two_step_policy").select("required_for_staff").executeTakeFirst();
    const setting = row?.required_for_staff ?? null;
    return { isRequired: setting ?? livemode, isDefault: setting === null };
  }

  async function resetOf(actor: Actor, accountEmail: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const user = await trx.selectFrom("users").select("id").where("email", "=", accountEmail).executeTakeFirst();
      if (!user) return false;
      const removed = await trx
        .deleteFrom("two_step_accounts")
        .where("user_id", "=", user.id)
        .returning("confirmed_at")
        .executeTakeFirst();
      await trx.deleteFrom("two_step_recovery_codes").where("user_id", "=", user.id).execute();
      await trx.deleteFrom("two_step_challenges").where("user_id", "=", user.id).execute();
      if (!removed?.confirmed_at) return false;
      await recordAudit(trx, actor, {
        action: "two-step.reset",
        subject: accountEmail,
        before: { twoStep: "on" },
        after: { twoStep: "off" },
      });
      return true;
    });
  }

  return {
    mayManageTwoStep,

    async getStatus(userId: string, accountEmail: string): Promise<TwoStepStatus> {
      const [row, left] = await Promise.all([
        db
          .selectFrom("two_step_accounts")
          .select(["secret", "confirmed_at"])
          .where("user_id", "=", userId)
          .executeTakeFirst(),
        db
          .selectFrom("two_step_recovery_codes")
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .where("user_id", "=", userId)
          .where("used_at", "is", null)
          .executeTakeFirstOrThrow(),
      ]);
      const isOn = row?.confirmed_at != null;
      return {
        isOn,
        recoveryCodesLeft: isOn ? Number(left.count) : 0,
        pending: row && !isOn ? pendingSetup(row.secret, accountEmail, await shopName()) : null,
      };
    },

    /** "Set up two-step verification": a new secret, not yet in force until a first code from it is confirmed. */
    async beginSetup(userId: string): Promise<void> {
      const secret = newTotpSecret();
      const result = await db
        .insertInto("two_step_accounts")
        .values({ user_id: userId, secret })
        .onConflict((conflict) =>
          conflict.column("user_id").doUpdateSet({ secret }).where("two_step_accounts.confirmed_at", "is", null),
        )
        .returning("user_id")
        .executeTakeFirst();
      if (!result) throw new AppError("BAD_REQUEST", "Two-step verification is already on for your account.");
    },

    /** A first code proves the app holds the secret: two-step is on, and the recovery codes are made (shown once). */
    async confirmSetup(userId: string, code: string): Promise<string[]> {
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("two_step_accounts")
          .select(["secret", "confirmed_at"])
          .where("user_id", "=", userId)
          .forUpdate()
          .executeTakeFirst();
        if (!row || row.confirmed_at)
          throw new AppError("BAD_REQUEST", "Start the setup again: choose “Set up two-step verification”.");
        const step = matchingStep(decodeBase32(row.secret), code, Date.now());
        if (step === null) throw new AppError("BAD_REQUEST", WRONG_CODE, { details: { field: "code" } });
        await trx
          .updateTable("two_step_accounts")
          .set({ confirmed_at: new Date(), last_used_step: step, failed_codes: 0, locked_until: null })
          .where("user_id", "=", userId)
          .execute();
        await trx.deleteFrom("two_step_recovery_codes").where("user_id", "=", userId).execute();
        await trx
          .insertInto("two_step_recovery_codes")
          .values(codes.map((recovery) => ({ user_id: userId, code_hash: hashRecoveryCode(recovery) })))
          .execute();
        return codes;
      });
    },

    async isOn(userId: string): Promise<boolean> {
      const row = await db
        .selectFrom("two_step_accounts")
        .select("user_id")
        .where("user_id", "=", userId)
        .where("confirmed_at", "is not", null)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** After the right password: the token of a sign-in that waits for its code (expired ones are cleared as it goes). */
    async startChallenge(userId: string): Promise<string> {
      const token = newToken();
      await db.deleteFrom("two_step_challenges").where("expires_at", "<", new Date()).execute();
      await db
        .insertInto("two_step_challenges")
        .values({
          token_hash: sha256Base64url(token),
          user_id: userId,
          expires_at: new Date(Date.now() + CHALLENGE_MINUTES * 60_000),
        })
        .execute();
      return token;
    },

    /**
     * The code (or a recovery code) for a waiting sign-in: the account it opens, once. A code's step is remembered,
     * so neither it nor an earlier one works again; every wrong answer counts, and the fifth in a row locks the
     * account's sign-in for 15 minutes, whichever browser asks.
     */
    async completeChallenge(challenge: string, answer: TwoStepAnswer): Promise<SessionUser> {
      if (!TOKEN_PATTERN.test(challenge)) throw new AppError("NOT_FOUND", EXPIRED);
      const outcome = await db.transaction().execute(async (trx) => {
        const waiting = await trx
          .selectFrom("two_step_challenges")
          .select("user_id")
          .where("token_hash", "=", sha256Base64url(challenge))
          .where("expires_at", ">", new Date())
          .executeTakeFirst();
        if (!waiting) return { refused: new AppError("NOT_FOUND", EXPIRED) } as const;
        const account = await trx
          .selectFrom("two_step_accounts")
          .select(["secret", "confirmed_at", "last_used_step", "failed_codes", "locked_until"])
          .where("user_id", "=", waiting.user_id)
          .forUpdate()
          .executeTakeFirst();
        if (!account?.confirmed_at) return { refused: new AppError("NOT_FOUND", EXPIRED) } as const;
        if (account.locked_until && account.locked_until.getTime() > Date.now()) {
          const seconds = Math.ceil((account.locked_until.getTime() - Date.now()) / 1000);
          return {
            refused: new AppError("TOO_MANY_ATTEMPTS", LOCKED, { retryAfterSeconds: seconds }),
          } as const;
        }
        let refusal: string | null = null;
        if ("code" in answer) {
          const step = matchingStep(decodeBase32(account.secret), answer.code, Date.now());
          if (step === null) refusal = WRONG_CODE;
          else if (step <= Number(account.last_used_step)) refusal = USED_CODE;
          else
            await trx
              .updateTable("two_step_accounts")
              .set({ last_used_step: step })
              .where("user_id", "=", waiting.user_id)
              .execute();
        } else {
          const used = await trx
            .updateTable("two_step_recovery_codes")
            .set({ used_at: new Date() })
            .where("user_id", "=", waiting.user_id)
            .where("code_hash", "=", hashRecoveryCode(answer.recoveryCode))
            .where("used_at", "is", null)
            .returning("user_id")
            .executeTakeFirst();
          if (!used) refusal = WRONG_RECOVERY_CODE;
        }
        if (refusal) {
          const failed = account.failed_codes + 1;
          const locks = failed >= WRONG_CODES_BEFORE_LOCK;
          await trx
            .updateTable("two_step_accounts")
            .set({
              failed_codes: locks ? 0 : failed,
              locked_until: locks ? new Date(Date.now() + LOCK_MINUTES * 60_000) : null,
            })
            .where("user_id", "=", waiting.user_id)
            .execute();
          // Kept in the table (committed), then refused: a wrong code counts even though nothing else changed.
          return {
            refused: locks
              ? new AppError("TOO_MANY_ATTEMPTS", LOCKED, { retryAfterSeconds: LOCK_MINUTES * 60 })
              : new AppError("WRONG_CREDENTIALS", refusal),
          } as const;
        }
        await trx
          .updateTable("two_step_accounts")
          .set({ failed_codes: 0, locked_until: null })
          .where("user_id", "=", waiting.user_id)
          .execute();
        await trx.deleteFrom("two_step_challenges").where("token_hash", "=", sha256Base64url(challenge)).execute();
        const user = await trx
          .selectFrom("users")
          .leftJoin("operators", "operators.user_id", "users.id")
          .select(["users.id", "users.email", "users.email_verified_at", "operators.user_id as operator_id"])
          .where("users.id", "=", waiting.user_id)
          .executeTakeFirstOrThrow();
        return {
          user: {
            id: user.id,
            email: user.email,
            isEmailVerified: user.email_verified_at !== null,
            isOperator: user.operator_id !== null,
          },
        } as const;
      });
      if ("refused" in outcome) throw outcome.refused;
      return outcome.user;
    },

    /** "Reset two-step" from the operators page: the account signs in with its password alone until it sets it up again. */
    async resetForOperator(actor: Actor, accountEmail: string): Promise<void> {
      if (!(await resetOf(actor, accountEmail)))
        throw new AppError("NOT_FOUND", `${accountEmail} has no two-step verification to reset.`, {
          details: { field: "email" },
        });
    },

    /** OPERATOR_RESET_TWO_STEP=true: the start-up operator's lost phone, when no recovery code is left. */
    async resetAtStartup(accountEmail: string): Promise<boolean> {
      return resetOf(STARTUP_ACTOR, accountEmail);
    },

    /** Which accounts (of those given) have two-step verification on. */
    async listAccountsWithTwoStep(userIds: readonly string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set();
      const rows = await db
        .selectFrom("two_step_accounts")
        .select("user_id")
        .where("user_id", "in", userIds)
        .where("confirmed_at", "is not", null)
        .execute();
      return new Set(rows.map((row) => row.user_id));
    },

    /** "Require two-step verification for staff", and whether it is the default (on with live Stripe keys). */
    readPolicy,

    async setRequiredForStaff(actor: Actor, isRequired: boolean): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("two_step_policy")
          .select("required_for_staff")
          .forUpdate()
          .executeTakeFirst();
        const wasRequired = before?.required_for_staff ?? livemode;
        await trx
          .insertInto("two_step_policy")
          .values({ required_for_staff: isRequired })
          .onConflict((conflict) =>
            conflict.column("id").doUpdateSet({ required_for_staff: isRequired, updated_at: new Date() }),
          )
          .execute();
        await recordAudit(trx, actor, {
          action: "two-step.policy",
          subject: "Require two-step verification for staff",
          before: { required: wasRequired },
          after: { required: isRequired },
        });
      });
    },

    /** Whether this operator must set up two-step before any console page: the rule is on and theirs is not. */
    async mustSetUpBeforeConsole(user: SessionUser): Promise<boolean> {
      if (!user.isOperator) return false;
      const row = await db
        .selectNoFrom((eb) => [
          eb.selectFrom("two_step_policy").select("required_for_staff").as("required"),
          eb
            .exists(
              eb
                .selectFrom("two_step_accounts")
                .select("user_id")
                .where("user_id", "=", user.id)
                .where("confirmed_at", "is not", null),
            )
            .as("is_on"),
        ])
        .executeTakeFirstOrThrow();
      return (row.required ?? livemode) && !row.is_on;
    },

    /**
     * An operator signed in: the browser's device cookie (kept, or a new one) and, when this account has not signed
     * in from it before, the "New sign-in to your {shop} console" e-mail, written with the row. Returns the
     * Set-Cookie value the answer carries (a year and more, HttpOnly; __Host- over HTTPS).
     */
    async noteConsoleSignIn(
      user: SessionUser,
      { cookieHeader, isHttps, ip, userAgent }: NewSignInFacts & { cookieHeader: string | null; isHttps: boolean },
    ): Promise<{ setCookie: string; isNewDevice: boolean }> {
      const name = isHttps ? `__Host-${DEVICE_COOKIE}` : DEVICE_COOKIE;
      const presented = cookieHeader ? parseCookies(cookieHeader, name)[name] : undefined;
      const token = presented && TOKEN_PATTERN.test(presented) ? presented : newToken();
      const deviceHash = sha256Base64url(token);
      const isNewDevice = await db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto("console_devices")
          .values({ user_id: user.id, device_hash: deviceHash })
          .onConflict((conflict) =>
            conflict.columns(["user_id", "device_hash"]).doUpdateSet({ last_seen_at: sql`now()` }),
          )
          .returning(sql<boolean>`xmax = 0`.as("inserted"))
          .executeTakeFirstOrThrow();
        if (row.inserted)
          await email.enqueueNewConsoleSignIn(trx, user.email, {
            at: new Date(),
            ip,
            browser: userAgent.slice(0, 200),
          });
        return row.inserted;
      });
      const setCookie = serializeCookie(name, token, {
        httpOnly: true,
        sameSite: "Lax",
        path: "/",
        secure: isHttps,
        maxAge: DEVICE_COOKIE_DAYS * 24 * 60 * 60,
      });
      return { setCookie, isNewDevice };
    },
  };
}

export type TwoStepService = ReturnType<typeof createTwoStepService>;
