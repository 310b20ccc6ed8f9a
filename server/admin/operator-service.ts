import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { hashPassword, passwordMatches } from "#server/accounts/account-service";
import { assertAcceptablePassword } from "#server/accounts/password-policy";
import type { DB } from "#server/db/client";
import { endAccountSessions } from "#server/sessions/session-service";
import { recordAudit, STARTUP_ACTOR, type Actor } from "./audit-log";

export interface OperatorListing {
  userId: string;
  email: string;
  grantedAt: Date;
  grantedByEmail: string | null;
}

/** What bootstrapping did, for the start-up log (which never names the password). */
export type BootstrapResult = "created" | "password-changed" | "role-granted" | "unchanged";

export function createOperatorService(db: DB) {
  return {
    /**
     * The operator named by OPERATOR_EMAIL and OPERATOR_PASSWORD: the account is created, or its password set, and
     * given the role; its address counts as confirmed (no welcome e-mail is written for it). A changed password signs the account out everywhere. Instances starting together over one
     * PostgreSQL take turns on the account's row.
     */
    async bootstrapOperator(email: string, password: string): Promise<BootstrapResult> {
      await assertAcceptablePassword(password, email);
      const passwordHash = await hashPassword(password);
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto("users")
          .values({ email, password_hash: passwordHash, email_verified_at: new Date() })
          .onConflict((conflict) => conflict.column("email").doNothing())
          .execute();
        // The address is the one the operator of the machine wrote into its environment: it needs no link to confirm it.
        await trx
          .updateTable("users")
          .set({ email_verified_at: new Date() })
          .where("email", "=", email)
          .where("email_verified_at", "is", null)
          .execute();
        const user = await trx
          .selectFrom("users")
          .select(["id", "password_hash"])
          .where("email", "=", email)
          .forUpdate()
          .executeTakeFirstOrThrow();
        let result: BootstrapResult = "unchanged";
        if (user.password_hash === passwordHash) {
          result = "created";
        } else if (!(await passwordMatches(user.password_hash, password))) {
          await trx.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", user.id).execute();
          await endAccountSessions(trx, user.id);
          result = "password-changed";
        }
        const granted = await trx
          .insertInto("operators")
          .values({ user_id: user.id, granted_by: null })
          .onConflict((conflict) => conflict.column("user_id").doNothing())
          .returning("user_id")
          .executeTakeFirst();
        if (granted && result === "unchanged") result = "role-granted";
        if (result !== "unchanged") {
          await recordAudit(trx, STARTUP_ACTOR, {
            action: result === "password-changed" ? "operator.password" : "operator.grant",
            subject: email,
            before: null,
            after: {
              operator: true,
              ...(result === "created" ? { account: "created" } : {}),
              ...(result === "password-changed" ? { password: "changed, sessions signed out" } : {}),
            },
          });
        }
        return result;
      });
    },

    async listOperators(): Promise<OperatorListing[]> {
      const rows = await db
        .selectFrom("operators")
        .innerJoin("users", "users.id", "operators.user_id")
        .leftJoin("users as granter", "granter.id", "operators.granted_by")
        .select(["operators.user_id", "users.email", "operators.granted_at", "granter.email as granted_by_email"])
        .orderBy("users.email")
        .execute();
      return rows.map((row) => ({
        userId: row.user_id,
        email: row.email,
        grantedAt: row.granted_at,
        grantedByEmail: row.granted_by_email,
      }));
    },

    /** Whether anybody can sign in to the console yet (the start-up log says how to make the first operator). */
    async hasOperators(): Promise<boolean> {
      return (await db.selectFrom("operators").select("user_id").limit(1).executeTakeFirst()) !== undefined;
    },

    /** Gives the role to an existing account, by its e-mail address. */
    async grantRole(actor: Actor, email: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const user = await trx.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
        if (!user)
          throw new AppError(
            "NOT_FOUND",
            "There is no account with that e-mail address. Ask them to create one first.",
            { details: { field: "email" } },
          );
        const granted = await trx
          .insertInto("operators")
          .values({ user_id: user.id, granted_by: actor.id })
          .onConflict((conflict) => conflict.column("user_id").doNothing())
          .returning("user_id")
          .executeTakeFirst();
        if (!granted)
          throw new AppError("BAD_REQUEST", `${email} is already an operator.`, { details: { field: "email" } });
        await recordAudit(trx, actor, {
          action: "operator.grant",
          subject: email,
          before: { operator: false },
          after: { operator: true },
        });
      });
    },

    /**
     * Takes the role from an account. The last operator cannot give up the role: the shop would have nobody left to
     * run it. Concurrent revokes take a lock on the role table, so two operators cannot revoke each other at once.
     */
    async revokeRole(actor: Actor, email: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await sql`lock table operators in share row exclusive mode`.execute(trx);
        const operator = await trx
          .selectFrom("operators")
          .innerJoin("users", "users.id", "operators.user_id")
          .select("operators.user_id")
          .where("users.email", "=", email)
          .executeTakeFirst();
        if (!operator) throw new AppError("NOT_FOUND", `${email} is not an operator.`, { details: { field: "email" } });
        const { count } = await trx
          .selectFrom("operators")
          .select((eb) => eb.fn.countAll<string>().as("count"))
          .executeTakeFirstOrThrow();
        if (Number(count) <= 1)
          throw new AppError(
            "FORBIDDEN",
            "The last operator cannot be removed: grant the role to someone else first.",
            { details: { field: "email" } },
          );
        await trx.deleteFrom("operators").where("user_id", "=", operator.user_id).execute();
        await recordAudit(trx, actor, {
          action: "operator.revoke",
          subject: email,
          before: { operator: true },
          after: { operator: false },
        });
      });
    },
  };
}

export type OperatorService = ReturnType<typeof createOperatorService>;
