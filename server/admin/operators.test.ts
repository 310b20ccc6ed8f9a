import { sql } from "kysely";
import { expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { failureOf } from "#server/testing/app-error";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

let counter = 0;
const uniqueEmail = (name = "operator") => `${name}${Date.now()}${++counter}@example.com`;
const PASSWORD = "violet tractor harbour pickle";
const NEW_PASSWORD = "quiet lantern orbit saffron";
const STARTUP = { id: null, email: "start-up (OPERATOR_EMAIL)" };

describeEachDatabase("operators", (getDatabase) => {
  const signIn = (shop: Awaited<ReturnType<typeof createTestShop>>, email: string, password: string) =>
    shop.services.signInFlow.signIn(credentialsSchema.parse({ intent: "sign-in", email, password }), {
      ip: "10.1.0.1",
      current: null,
    });
  const auditOf = async (subject: string) =>
    getDatabase()
      .db.selectFrom("audit_log")
      .select(["operator_email", "action", "before", "after"])
      .where("subject", "=", subject)
      .orderBy("id")
      .execute();

  it("start-up creates the operator's account with the role; its sessions carry the role", async () => {
    const email = uniqueEmail();
    const shop = await createTestShop(getDatabase(), { operator: { email, password: PASSWORD } });
    const { session, token } = await signIn(shop, email, PASSWORD);
    expect(session.user?.email).toBe(email);
    expect((await shop.services.sessions.findSession(token))?.user?.isOperator).toBe(true);
    // No welcome e-mail is written for it, and nothing asks it to confirm an address nobody could have sent a link to.
    const account = await getDatabase()
      .db.selectFrom("users")
      .select("email_verified_at")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    expect(account.email_verified_at).toBeInstanceOf(Date);
    expect(await auditOf(email)).toEqual([
      {
        operator_email: "start-up (OPERATOR_EMAIL)",
        action: "operator.grant",
        before: null,
        after: { operator: true, role: "Owner", account: "created" },
      },
    ]);
    // The same settings at the next start change nothing and write nothing.
    await createTestShop(getDatabase(), { operator: { email, password: PASSWORD } });
    expect((await shop.services.sessions.findSession(token))?.user?.isOperator).toBe(true);
    expect(await auditOf(email)).toHaveLength(1);
  });

  it("start-up sets a new password on an existing account, gives it the role and signs it out everywhere", async () => {
    const email = uniqueEmail("shopper");
    const shop = await createTestShop(getDatabase());
    await shop.services.signInFlow.signIn(credentialsSchema.parse({ intent: "register", email, password: PASSWORD }), {
      ip: "10.1.0.2",
      current: null,
    });
    const { token } = await signIn(shop, email, PASSWORD);
    expect((await shop.services.sessions.findSession(token))?.user?.isOperator).toBe(false);

    await createTestShop(getDatabase(), { operator: { email, password: NEW_PASSWORD } });
    expect(await shop.services.sessions.findSession(token)).toBeNull();
    expect((await failureOf(signIn(shop, email, PASSWORD))).code).toBe("WRONG_CREDENTIALS");
    const again = await signIn(shop, email, NEW_PASSWORD);
    expect((await shop.services.sessions.findSession(again.token))?.user?.isOperator).toBe(true);
    expect(
      (
        await getDatabase()
          .db.selectFrom("users")
          .select("email_verified_at")
          .where("email", "=", email)
          .executeTakeFirstOrThrow()
      ).email_verified_at,
    ).toBeInstanceOf(Date);
    expect((await auditOf(email)).map((entry) => entry.action)).toEqual(["operator.password"]);
  });

  it("start-up refuses a weak operator password, creating nothing", async () => {
    const email = uniqueEmail();
    const error = await failureOf(createTestShop(getDatabase(), { operator: { email, password: "password1234" } }));
    expect(error.code).toBe("INVALID_PASSWORD");
    expect(
      await getDatabase().db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst(),
    ).toBeUndefined();
  });

  const invitationToken = async (email: string) => {
    const mail = await getDatabase()
      .db.selectFrom("email_outbox")
      .select(["subject", "text_body"])
      .where("recipient", "=", email)
      .where("kind", "=", "staff-invitation")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(mail.subject).toBe("You are invited to run Storefront");
    return /\/staff-invitation\?token=([\w-]{43})/.exec(mail.text_body)![1]!;
  };

  it("an Owner invites staff by e-mail and role; the link sets the password once; roles change and access is removed, each in the audit log", async () => {
    const db = getDatabase().db;
    // Only the people of this test hold a role: others from earlier tests lose it first.
    await db.deleteFrom("operators").execute();
    const ownerEmail = uniqueEmail("owner");
    const shop = await createTestShop(getDatabase(), { operator: { email: ownerEmail, password: PASSWORD } });
    const owner = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "=", ownerEmail)
      .executeTakeFirstOrThrow();
    const { operators, accountFlows, sessions } = shop.services;
    const { token: ownerToken } = await signIn(shop, ownerEmail, PASSWORD);
    expect((await sessions.findSession(ownerToken))?.user?.console).toEqual({ role: "owner", areas: [] });

    // A new address: an account with no password yet, the role, and an e-mail with a link.
    const clerkEmail = uniqueEmail("clerk");
    await operators.invite(owner, { email: clerkEmail, role: "staff", areas: ["reports", "orders"] });
    expect((await failureOf(signIn(shop, clerkEmail, "!invited"))).code).toBe("WRONG_CREDENTIALS");
    expect((await failureOf(operators.invite(owner, { email: clerkEmail, role: "manager", areas: [] }))).message).toBe(
      `${clerkEmail} already has access to the console.`,
    );
    expect(
      (await operators.listStaff()).map((member) => [member.email, member.role, member.areas, member.isInvitationOpen]),
    ).toEqual([
      [ownerEmail, "owner", [], false],
      [clerkEmail, "staff", ["orders", "reports"], true],
    ]);

    const link = await invitationToken(clerkEmail);
    expect(await accountFlows.findLiveInvitation(link)).toEqual({ email: clerkEmail });
    // The console's outbox shows the invitation without its link's token: whoever reads the outbox cannot take it.
    const { id: mailId } = await db
      .selectFrom("email_outbox")
      .select("id")
      .where("recipient", "=", clerkEmail)
      .executeTakeFirstOrThrow();
    const shown = await shop.services.email.getOutboxEmail(mailId);
    expect(shown?.textBody).toContain("/staff-invitation?token=(hidden)");
    expect(`${shown?.textBody} ${shown?.htmlBody}`).not.toContain(link);
    const joined = await accountFlows.acceptStaffInvitation(link, NEW_PASSWORD, null);
    expect((await sessions.findSession(joined!.token))?.user?.console).toEqual({
      role: "staff",
      areas: ["orders", "reports"],
    });
    // Once: the same link again opens nothing.
    expect(await accountFlows.findLiveInvitation(link)).toBeNull();
    expect((await failureOf(accountFlows.acceptStaffInvitation(link, PASSWORD, null))).code).toBe("NOT_FOUND");
    const { token: clerkToken } = await signIn(shop, clerkEmail, NEW_PASSWORD);

    // A new role is read with the clerk's very next request.
    await operators.changeRole(owner, { email: clerkEmail, role: "manager", areas: ["orders"] });
    expect((await sessions.findSession(clerkToken))?.user?.console).toEqual({ role: "manager", areas: [] });

    // The only Owner stays one: neither demoted nor removed.
    const last = "The shop must keep at least one Owner: make someone else an Owner first.";
    expect(
      (await failureOf(operators.changeRole(owner, { email: ownerEmail, role: "manager", areas: [] }))).message,
    ).toBe(last);
    expect((await failureOf(operators.removeAccess(owner, ownerEmail))).message).toBe(last);

    // "Remove access" ends every session of the account at once: no instance finds them again.
    await operators.removeAccess(owner, clerkEmail);
    expect(await sessions.findSession(clerkToken)).toBeNull();
    expect(await sessions.findSession(joined!.token)).toBeNull();
    const again = await signIn(shop, clerkEmail, NEW_PASSWORD);
    expect((await sessions.findSession(again.token))?.user?.isOperator).toBe(false);
    expect((await operators.listStaff()).map((member) => member.email)).toEqual([ownerEmail]);

    // Two Owners removing each other at once: one succeeds, the other is refused, one Owner remains.
    await operators.invite(owner, { email: clerkEmail, role: "owner", areas: [] });
    const clerk = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "=", clerkEmail)
      .executeTakeFirstOrThrow();
    const results = await Promise.allSettled([
      operators.removeAccess(owner, clerkEmail),
      operators.removeAccess(clerk, ownerEmail),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect((await operators.listStaff()).map((member) => member.role)).toEqual(["owner"]);

    // The log names who did each thing.
    expect((await auditOf(clerkEmail)).slice(0, 4)).toEqual([
      {
        operator_email: ownerEmail,
        action: "staff.invite",
        before: null,
        after: { role: "Staff", areas: "orders, reports" },
      },
      {
        operator_email: clerkEmail,
        action: "staff.join",
        before: { password: "not set" },
        after: { password: "set from the invitation" },
      },
      {
        operator_email: ownerEmail,
        action: "staff.role",
        before: { role: "Staff", areas: "orders, reports" },
        after: { role: "Manager", areas: null },
      },
      {
        operator_email: ownerEmail,
        action: "staff.remove",
        before: { role: "Manager", access: null, sessions: null },
        after: { role: null, access: "none", sessions: "signed out" },
      },
    ]);
  });

  it("an invitation's link works for 72 hours", async () => {
    const shop = await createTestShop(getDatabase());
    const email = uniqueEmail("late");
    await shop.services.operators.invite(STARTUP, { email, role: "staff", areas: ["reviews"] });
    const link = await invitationToken(email);
    const row = await getDatabase()
      .db.selectFrom("account_tokens")
      .innerJoin("users", "users.id", "account_tokens.user_id")
      .select(sql<number>`extract(epoch from expires_at - account_tokens.created_at)`.as("seconds"))
      .where("users.email", "=", email)
      .executeTakeFirstOrThrow();
    expect(Math.abs(Number(row.seconds) - 72 * 3600)).toBeLessThan(5);
    await getDatabase()
      .db.updateTable("account_tokens")
      .set({ expires_at: sql<Date>`now() - interval '1 second'` })
      .where("purpose", "=", "staff-invitation")
      .execute();
    expect(await shop.services.accountFlows.findLiveInvitation(link)).toBeNull();
    expect((await failureOf(shop.services.accountFlows.acceptStaffInvitation(link, PASSWORD, null))).code).toBe(
      "NOT_FOUND",
    );
  });
});
