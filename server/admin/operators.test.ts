import { expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { AppError } from "#shared/errors";
import { failureOf } from "#server/testing/app-error";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

let counter = 0;
const uniqueEmail = (name = "operator") => `${name}${Date.now()}${++counter}@example.com`;
const PASSWORD = "violet tractor harbour pickle";
const NEW_PASSWORD = "quiet lantern orbit saffron";

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
        after: { operator: true, account: "created" },
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

  it("operators grant and revoke the role by e-mail, never the last one, and every change is in the audit log", async () => {
    const db = getDatabase().db;
    // Only these two hold the role in this test: others from earlier tests lose it first.
    await db.deleteFrom("operators").execute();
    const ownerEmail = uniqueEmail("owner");
    const shop = await createTestShop(getDatabase(), { operator: { email: ownerEmail, password: PASSWORD } });
    const owner = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "=", ownerEmail)
      .executeTakeFirstOrThrow();
    const { operators } = shop.services;

    const unknown = await failureOf(operators.grantRole(owner, uniqueEmail("nobody")));
    expect(unknown.message).toBe("There is no account with that e-mail address. Ask them to create one first.");

    const helperEmail = uniqueEmail("colleague");
    await shop.services.signInFlow.signIn(
      credentialsSchema.parse({ intent: "register", email: helperEmail, password: PASSWORD }),
      { ip: "10.1.0.3", current: null },
    );
    const { token } = await signIn(shop, helperEmail, PASSWORD);
    await operators.grantRole(owner, helperEmail);
    expect((await shop.services.sessions.findSession(token))?.user?.isOperator).toBe(true);
    expect((await operators.listOperators()).map((operator) => [operator.email, operator.grantedByEmail])).toEqual(
      [
        [ownerEmail, null],
        [helperEmail, ownerEmail],
      ].sort(([a], [b]) => a!.localeCompare(b!)),
    );
    expect((await failureOf(operators.grantRole(owner, helperEmail))).message).toBe(
      `${helperEmail} is already an operator.`,
    );

    // A revoke takes effect on the colleague's very next request.
    await operators.revokeRole(owner, helperEmail);
    expect((await shop.services.sessions.findSession(token))?.user?.isOperator).toBe(false);

    // The owner is now the last operator: neither they nor anyone can take the role away.
    const last = await failureOf(operators.revokeRole(owner, ownerEmail));
    expect(last).toBeInstanceOf(AppError);
    expect(last.message).toBe("The last operator cannot be removed: grant the role to someone else first.");
    expect((await operators.listOperators()).map((operator) => operator.email)).toEqual([ownerEmail]);

    // Two operators revoking each other at once: one succeeds, the other is refused, one operator remains.
    await operators.grantRole(owner, helperEmail);
    const helper = await db
      .selectFrom("users")
      .select(["id", "email"])
      .where("email", "=", helperEmail)
      .executeTakeFirstOrThrow();
    const results = await Promise.allSettled([
      operators.revokeRole(owner, helperEmail),
      operators.revokeRole(helper, ownerEmail),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(await operators.listOperators()).toHaveLength(1);

    const entries = await auditOf(helperEmail);
    expect(entries.slice(0, 2)).toEqual([
      { operator_email: ownerEmail, action: "operator.grant", before: { operator: false }, after: { operator: true } },
      { operator_email: ownerEmail, action: "operator.revoke", before: { operator: true }, after: { operator: false } },
    ]);
  });
});
