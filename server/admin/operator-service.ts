// The shop's staff: the start-up bootstrap of the Owner from OPERATOR_EMAIL, invitations, role changes and removing
// access, each audited; the one writer of operators.

import { sql, type Transaction } from "kysely";
import { AppError } from "#shared/errors";
import { CONSOLE_AREA_IDS, ROLE_LABELS, type ConsoleArea, type StaffRole } from "#shared/console-access";
import { issueToken, voidTokens } from "#server/accounts/account-tokens";
import type { Database } from "#server/db/schema";
import type { EmailOutbox } from "#server/email/email-outbox";
import { hashPassword, passwordMatches } from "#server/accounts/account-service";
import { assertAcceptablePassword } from "#server/accounts/password-policy";
import {
  accountForInvitation,
  lockConfirmedAccount,
  NO_PASSWORD_YET,
  setPasswordHash,
} from "#server/accounts/staff-accounts";
import type { DB } from "#server/db/client";
import { endAccountSessions } from "#server/sessions/session-service";
import { recordAudit, STARTUP_ACTOR, type Actor } from "#server/audit/audit-log";

/** What bootstrapping did, for the start-up log (which never names the password). */
export type BootstrapResult = "created" | "password-changed" | "role-granted" | "unchanged";

export function createOperatorService(db: DB, emailOutbox: Pick<EmailOutbox, "enqueueStaffInvitation">) {
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
        const user = await lockConfirmedAccount(trx, email, passwordHash);
        let result: BootstrapResult = "unchanged";
        if (user.password_hash === passwordHash) {
          result = "created";
        } else if (!(await passwordMatches(user.password_hash, password))) {
          await setPasswordHash(trx, user.id, passwordHash);
          await endAccountSessions(trx, user.id);
          result = "password-changed";
        }
        // The account named by the machine's environment owns the shop, whatever role it had been given.
        const granted = await trx
          .insertInto("operators")
          .values({ user_id: user.id, granted_by: null, role: "owner" })
          .onConflict((conflict) =>
            conflict
              .column("user_id")
              .doUpdateSet({ role: "owner", areas: areasValue("owner", []) })
              .where("operators.role", "<>", "owner"),
          )
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
              role: "Owner",
              ...(result === "created" ? { account: "created" } : {}),
              ...(result === "password-changed" ? { password: "changed, sessions signed out" } : {}),
            },
          });
        }
        return result;
      });
    },

    /** Everyone with console access, Owners first, with who gave it and whether their invitation is still open. */
    async listStaff(): Promise<StaffListing[]> {
      const rows = await db
        .selectFrom("operators")
        .innerJoin("users", "users.id", "operators.user_id")
        .leftJoin("users as granter", "granter.id", "operators.granted_by")
        .select([
          "operators.user_id",
          "operators.role",
          "operators.areas",
          "users.email",
          "users.password_hash",
          "operators.granted_at",
          "granter.email as granted_by_email",
        ])
        .orderBy(sql`case operators.role when 'owner' then 0 when 'manager' then 1 else 2 end`)
        .orderBy("users.email")
        .execute();
      return rows.map((row) => ({
        userId: row.user_id,
        email: row.email,
        role: row.role,
        areas: CONSOLE_AREA_IDS.filter((area) => row.areas.includes(area)),
        grantedAt: row.granted_at,
        grantedByEmail: row.granted_by_email,
        isInvitationOpen: row.password_hash === NO_PASSWORD_YET,
      }));
    },

    /** Whether anybody can sign in to the console yet (the start-up log says how to make the first operator). */
    async hasOperators(): Promise<boolean> {
      return (await db.selectFrom("operators").select("user_id").limit(1).executeTakeFirst()) !== undefined;
    },

    /**
     * "Invite staff": the address gets an account if it has none (with no password until the invitation's link
     * sets one), the role, and an e-mail whose link sets the password once, within 72 hours.
     */
    async invite(actor: Actor, { email, role, areas }: StaffChange): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const userId = await accountForInvitation(trx, email);
        const granted = await trx
          .insertInto("operators")
          .values({ user_id: userId, granted_by: actor.id, role, areas: areasValue(role, areas) })
          .onConflict((conflict) => conflict.column("user_id").doNothing())
          .returning("user_id")
          .executeTakeFirst();
        if (!granted)
          throw new AppError("BAD_REQUEST", `${email} already has access to the console.`, {
            details: { field: "email" },
          });
        const token = await issueToken(trx, userId, "staff-invitation", INVITATION_VALID_MS);
        await emailOutbox.enqueueStaffInvitation(trx, email, token, {
          role: role === "staff" ? "Staff" : `${role === "owner" ? "an" : "a"} ${ROLE_LABELS[role]}`,
          invitedBy: actor.email,
        });
        await recordAudit(trx, actor, {
          action: "staff.invite",
          subject: email,
          before: null,
          after: describe(role, areas),
        });
      });
    },

    /** "Change role": a new role (and areas), in effect on their next request; never the last Owner's. */
    async changeRole(actor: Actor, { email, role, areas }: StaffChange): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const member = await lockedMember(trx, email);
        if (member.role === "owner" && role !== "owner") await assertAnotherOwner(trx);
        const before = describe(member.role, member.areas);
        const after = describe(role, areas);
        if (JSON.stringify(before) === JSON.stringify(after)) return;
        await trx
          .updateTable("operators")
          .set({ role, areas: areasValue(role, areas) })
          .where("user_id", "=", member.user_id)
          .execute();
        await recordAudit(trx, actor, { action: "staff.role", subject: email, before, after });
      });
    },

    /**
     * "Remove access": the role goes, and every session of the account ends with it, so each instance's next request
     * from any of their browsers finds no session. Never the last Owner.
     */
    async removeAccess(actor: Actor, email: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const member = await lockedMember(trx, email);
        if (member.role === "owner") await assertAnotherOwner(trx);
        await trx.deleteFrom("operators").where("user_id", "=", member.user_id).execute();
        await endAccountSessions(trx, member.user_id);
        await voidTokens(trx, member.user_id, "staff-invitation");
        await recordAudit(trx, actor, {
          action: "staff.remove",
          subject: email,
          before: describe(member.role, member.areas),
          after: { access: "none", sessions: "signed out" },
        });
      });
    },
  };
}

/** An invitation's link works for 72 hours. */
export const INVITATION_VALID_MS = 72 * 60 * 60 * 1000;

export interface StaffChange {
  email: string;
  role: StaffRole;
  areas: readonly ConsoleArea[];
}

export interface StaffListing {
  userId: string;
  email: string;
  role: StaffRole;
  areas: ConsoleArea[];
  grantedAt: Date;
  grantedByEmail: string | null;
  /** Invited, and the link has not yet set a password. */
  isInvitationOpen: boolean;
}

const areasFor = (role: StaffRole, areas: readonly ConsoleArea[]): ConsoleArea[] =>
  role === "staff" ? CONSOLE_AREA_IDS.filter((area) => areas.includes(area)) : [];

/** The areas as a text[] value: one text parameter split in SQL (the shop's PGlite driver takes no array parameters). */
const areasValue = (role: StaffRole, areas: readonly ConsoleArea[]) =>
  sql<ConsoleArea[]>`string_to_array(${areasFor(role, areas).join(",")}::text, ',')`;

/** The audit log's view of a role: Owners and Managers have every area, so only Staff list theirs. */
const describe = (role: StaffRole, areas: readonly ConsoleArea[]) => ({
  role: ROLE_LABELS[role],
  ...(role === "staff" ? { areas: areasFor(role, areas).join(", ") } : {}),
});

/**
 * The member by e-mail, with the role table locked against other changes of role until the transaction ends: two
 * Owners demoting or removing each other at once cannot leave the shop with none.
 */
async function lockedMember(trx: Transaction<Database>, email: string) {
  await sql`lock table operators in share row exclusive mode`.execute(trx);
  const member = await trx
    .selectFrom("operators")
    .innerJoin("users", "users.id", "operators.user_id")
    .select(["operators.user_id", "operators.role", "operators.areas"])
    .where("users.email", "=", email)
    .executeTakeFirst();
  if (!member)
    throw new AppError("NOT_FOUND", `${email} has no access to the console.`, { details: { field: "email" } });
  return member;
}

async function assertAnotherOwner(trx: Transaction<Database>) {
  const { count } = await trx
    .selectFrom("operators")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  if (Number(count) <= 1)
    throw new AppError("FORBIDDEN", "The shop must keep at least one Owner: make someone else an Owner first.", {
      details: { field: "email" },
    });
}

export type OperatorService = ReturnType<typeof createOperatorService>;
