// What a shopper does with their account besides signing in: reset and confirmation links (single use, hashed),
// changing the password, signing out everywhere, and deleting the account with what it leaves behind anonymised.

import { sql, type Transaction } from "kysely";
import type { Database } from "#server/db/schema";
import { recordAudit } from "#server/audit/audit-log";
import { AppError } from "#shared/errors";
import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { CheckoutService } from "#server/checkout/checkout-service";
import type { OrderService } from "#server/orders/order-service";
import { endAccountSessions, type Session, type SessionService } from "#server/sessions/session-service";
import { hashPassword, VERIFICATION_VALID_MS, type AccountService } from "./account-service";
import { consumeToken, findLiveToken, issueToken, voidTokens } from "./account-tokens";
import { assertAcceptablePassword } from "./password-policy";
import { tooManyRequests, type RateLimiter, type RateLimitRule } from "#server/rate-limits/rate-limiter";
import type { SignInFlow } from "./sign-in-flow";

const MINUTE = 60_000;
/** A reset link works for an hour (OWASP's forgot-password cheat sheet: short-lived, single use). */
export const RESET_VALID_MS = 60 * MINUTE;
/**
 * Every "Send reset link" answer takes at least this long, whether an account exists or not, so that the time taken
 * tells nothing either (writing a token and an e-mail takes longer than finding nobody).
 */
export const FORGOT_PASSWORD_MIN_MS = 400;

export interface AccountView {
  email: string;
  isEmailVerified: boolean;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * The account's life after sign-up, across accounts, sessions, orders, payments and the e-mail outbox: forgotten passwords,
 * e-mail confirmation, a new password, signing out everywhere, deleting the account. Each e-mail is written in the
 * transaction of the change it reports.
 */
export function createAccountFlows(deps: {
  db: DB;
  accounts: AccountService;
  sessions: SessionService;
  signInFlow: SignInFlow;
  orders: OrderService;
  checkout: Pick<CheckoutService, "anonymisePaymentsOf">;
  email: EmailOutbox;
  rateLimiter: RateLimiter;
  attemptsPerIp: number;
}) {
  const { db, accounts, sessions, signInFlow, orders, checkout, email, rateLimiter } = deps;
  const resetRules = {
    perIp: { name: "reset:ip", limit: deps.attemptsPerIp, windowMs: 15 * MINUTE },
    perEmailAndIp: { name: "reset:email-ip", limit: 5, windowMs: 15 * MINUTE },
    perEmail: { name: "reset:email", limit: 10, windowMs: 60 * MINUTE },
  } satisfies Record<string, RateLimitRule>;
  const resendRule: RateLimitRule = { name: "verify:user", limit: 5, windowMs: 60 * MINUTE };

  async function limit(rules: [RateLimitRule, string][]) {
    for (const [rule, subject] of rules) {
      const result = await rateLimiter.hit(rule, subject);
      if (!result.allowed) throw tooManyRequests("TOO_MANY_ATTEMPTS", "Too many requests.", result.retryAfterMs);
    }
  }

  /**
   * A password set from an e-mailed link (reset or invitation): the link is used up, the password replaced, the
   * address confirmed, every session of the account ended and `andThen` done, in one transaction; then this browser
   * is signed in.
   */
  async function passwordFromLink(
    purpose: "password-reset" | "staff-invitation",
    token: string,
    newPassword: string,
    current: Session | null,
    andThen: (trx: Transaction<Database>, user: { id: string; email: string }) => Promise<unknown>,
  ) {
    const dead = purpose === "password-reset" ? RESET_LINK_DEAD : INVITATION_LINK_DEAD;
    const holder = await findLiveToken(db, token, purpose);
    if (!holder) throw new AppError("NOT_FOUND", dead);
    await assertAcceptablePassword(newPassword, holder.email);
    const passwordHash = await hashPassword(newPassword);
    const user = await db.transaction().execute(async (trx) => {
      const userId = await consumeToken(trx, token, purpose);
      if (!userId) throw new AppError("NOT_FOUND", dead);
      // Following the link proves the address as well as the welcome link would.
      const row = await trx
        .updateTable("users")
        .set({ password_hash: passwordHash, email_verified_at: sql`coalesce(email_verified_at, now())` })
        .where("id", "=", userId)
        .returning(["id", "email"])
        .executeTakeFirstOrThrow();
      await endAccountSessions(trx, userId);
      await andThen(trx, row);
      return row;
    });
    // The link proves the mailbox, not the phone: with two-step verification on, signing in still asks for the code.
    if (await signInFlow.isTwoStepOn(user.id)) return null;
    return signInFlow.startAccountSession({ ...user, isEmailVerified: true }, current);
  }

  return {
    /**
     * "Send reset link": a link to a known account's address, nothing for an unknown one, and the same answer and
     * the same time either way. Limited per address, per e-mail and address, and per e-mail, for known and unknown
     * addresses alike.
     */
    async requestPasswordReset(address: string, ip: string): Promise<void> {
      const startedAt = performance.now();
      try {
        await limit([
          [resetRules.perIp, ip],
          [resetRules.perEmailAndIp, `${address} ${ip}`],
          [resetRules.perEmail, address],
        ]);
        await db.transaction().execute(async (trx) => {
          const user = await trx
            .selectFrom("users")
            .select(["id", "email"])
            .where("email", "=", address)
            .executeTakeFirst();
          if (!user) return;
          await email.enqueuePasswordReset(
            trx,
            user.email,
            await issueToken(trx, user.id, "password-reset", RESET_VALID_MS),
          );
        });
      } finally {
        const remaining = FORGOT_PASSWORD_MIN_MS - (performance.now() - startedAt);
        if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
      }
    },

    /** Whether a reset link can still be used (the page shows the form, or says why not). */
    async isResetLinkLive(token: string): Promise<boolean> {
      return (await findLiveToken(db, token, "password-reset")) !== null;
    },

    /**
     * "Set new password" from a reset link: the link is used up, the password replaced, every session of the account
     * ended and a "password changed" e-mail written, in one transaction; then this browser is signed in (null: two-step
     * verification is on, and the sign-in page asks for the code).
     */
    async resetPassword(token: string, newPassword: string, current: Session | null) {
      return passwordFromLink("password-reset", token, newPassword, current, (trx, user) =>
        email.enqueuePasswordChanged(trx, user.email),
      );
    },

    /** Whether a staff invitation's link can still be used, and for whom. */
    async findLiveInvitation(token: string): Promise<{ email: string } | null> {
      const holder = await findLiveToken(db, token, "staff-invitation");
      return holder ? { email: holder.email } : null;
    },

    /**
     * "Set my password" from a staff invitation: as a reset link (once, the account's other sessions ended), with
     * the acceptance in the audit log, by the invitee; then this browser is signed in.
     */
    async acceptStaffInvitation(token: string, newPassword: string, current: Session | null) {
      return passwordFromLink("staff-invitation", token, newPassword, current, (trx, user) =>
        recordAudit(trx, user, {
          action: "staff.join",
          subject: user.email,
          before: { password: "not set" },
          after: { password: "set from the invitation" },
        }),
      );
    },

    /** The welcome e-mail's link: true when it confirmed the address (now or before, by a link that was already used). */
    async verifyEmail(token: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const userId = await consumeToken(trx, token, "email-verification");
        if (!userId) return false;
        await trx
          .updateTable("users")
          .set({ email_verified_at: sql`coalesce(email_verified_at, now())` })
          .where("id", "=", userId)
          .execute();
        return true;
      });
    },

    /** "Send again": a new confirmation link (the previous one stops working), at most 5 an hour. */
    async resendVerification(userId: string): Promise<void> {
      await limit([[resendRule, userId]]);
      await db.transaction().execute(async (trx) => {
        const user = await trx
          .selectFrom("users")
          .select(["id", "email", "email_verified_at"])
          .where("id", "=", userId)
          .executeTakeFirst();
        if (!user || user.email_verified_at) return;
        await email.enqueueVerification(
          trx,
          user.email,
          await issueToken(trx, user.id, "email-verification", VERIFICATION_VALID_MS),
        );
      });
    },

    async getAccount(userId: string): Promise<AccountView | null> {
      const row = await db
        .selectFrom("users")
        .select(["email", "email_verified_at", "created_at"])
        .where("id", "=", userId)
        .executeTakeFirst();
      return row
        ? { email: row.email, isEmailVerified: row.email_verified_at !== null, createdAt: row.created_at.toISOString() }
        : null;
    },

    /** A new password, given the current one (limited like sign-in): every other session is signed out, this one stays. */
    async changePassword(session: Session, currentPassword: string, newPassword: string, ip: string): Promise<void> {
      const user = session.user;
      if (!user) throw new AppError("FORBIDDEN", "Please sign in first.");
      await accounts.verifyCredentials(user.email, currentPassword, ip);
      await assertAcceptablePassword(newPassword, user.email);
      const passwordHash = await hashPassword(newPassword);
      await db.transaction().execute(async (trx) => {
        await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", user.id).execute();
        await endAccountSessions(trx, user.id, session.id);
        // A reset link sent before the change would undo it: it is cancelled with the other sessions.
        await voidTokens(trx, user.id, "password-reset");
        await email.enqueuePasswordChanged(trx, user.email);
      });
    },

    /** "Sign out everywhere": every session of the account ends, this one too, and every reset link sent is cancelled. */
    async signOutEverywhere(userId: string): Promise<void> {
      await voidTokens(db, userId, "password-reset");
      await sessions.endAccountSessions(userId);
    },

    /**
     * "Delete my account", confirmed by the password: the account, its sessions, basket and links are erased; its
     * orders stay for the shop's books with the personal data taken out; unsent e-mails to it are cancelled and the
     * outbox forgets the address; one last e-mail says it is done.
     */
    async deleteAccount(session: Session, password: string, ip: string): Promise<void> {
      const user = session.user;
      if (!user) throw new AppError("FORBIDDEN", "Please sign in first.");
      await accounts.verifyCredentials(user.email, password, ip);
      await db.transaction().execute(async (trx) => {
        await orders.anonymiseOrdersOf(trx, user.id);
        await checkout.anonymisePaymentsOf(trx, user.id);
        await email.forgetRecipient(trx, user.email);
        await email.enqueueAccountDeleted(trx, user.email);
        // Sessions, baskets and tokens go with the account (foreign keys on delete cascade).
        await trx.deleteFrom("users").where("id", "=", user.id).execute();
      });
    },
  };
}

export type AccountFlows = ReturnType<typeof createAccountFlows>;

export const INVITATION_LINK_DEAD =
  "This invitation link has already been used, has expired or is not complete. Ask the shop's owner for a new one.";

export const RESET_LINK_DEAD =
  "This password reset link has already been used, has expired or is not complete. Please ask for a new one.";
