import { expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { failureOf } from "#server/testing/app-error";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { decodeBase32, totp } from "./totp";

let counter = 0;
const uniqueEmail = (name = "operator") => `${name}${Date.now()}${++counter}@example.com`;
const PASSWORD = "violet tractor harbour pickle";
const STEP_MS = 30_000;

describeEachDatabase("two-step sign-in", (getDatabase) => {
  type Shop = Awaited<ReturnType<typeof createTestShop>>;
  const password = (email: string) => credentialsSchema.parse({ intent: "sign-in", email, password: PASSWORD });
  const register = (shop: Shop, email: string) =>
    shop.services.signInFlow.signIn(credentialsSchema.parse({ intent: "register", email, password: PASSWORD }), {
      ip: "10.2.0.1",
      current: null,
    });
  const challengeFor = async (shop: Shop, email: string) => {
    const outcome = await shop.services.signInFlow.beginSignIn(password(email), { ip: "10.2.0.1", current: null });
    if (!("twoStepChallenge" in outcome)) throw new Error("signed in without a code");
    return outcome.twoStepChallenge;
  };
  const sessionsOf = async (userId: string) =>
    (await getDatabase().db.selectFrom("sessions").select("id").where("user_id", "=", userId).execute()).length;

  /** An account with two-step on, as the account page sets it up: the secret and the recovery codes shown once. */
  async function withTwoStep(shop: Shop, email: string) {
    const { session } = await register(shop, email);
    const userId = session.user!.id;
    await shop.services.twoStep.beginSetup(userId);
    const status = await shop.services.twoStep.getStatus(userId, email);
    const key = decodeBase32(status.pending!.secret);
    expect(status.pending!.uri).toContain(`secret=${status.pending!.secret}`);
    expect(status.pending!.qr.path).toMatch(/^M\d+ \d+h1v1h-1z/);
    const confirmedAt = Date.now();
    const recoveryCodes = await shop.services.twoStep.confirmSetup(userId, totp(key, confirmedAt));
    return { userId, key, recoveryCodes, confirmedAt };
  }

  it("asks an account with it on for a code after the password, gives no session before it, and takes each code once", async () => {
    const shop = await createTestShop(getDatabase());
    const email = uniqueEmail("shopper");
    const { userId, key, recoveryCodes, confirmedAt } = await withTwoStep(shop, email);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    // Stored hashed: no code is in the table as shown.
    const stored = await getDatabase()
      .db.selectFrom("two_step_recovery_codes")
      .select("code_hash")
      .where("user_id", "=", userId)
      .execute();
    expect(stored).toHaveLength(10);
    expect(stored.map((row) => row.code_hash)).not.toContain(recoveryCodes[0]);
    expect(await shop.services.twoStep.getStatus(userId, email)).toMatchObject({ isOn: true, recoveryCodesLeft: 10 });

    await shop.services.signInFlow.signOut((await register(shop, uniqueEmail())).session);
    const before = await sessionsOf(userId);
    const challenge = await challengeFor(shop, email);
    expect(await sessionsOf(userId)).toBe(before);
    // The code that confirmed the setup was used: it does not sign in (even once its 30 seconds have passed, while
    // the window still takes it).
    expect(
      (
        await failureOf(
          shop.services.signInFlow.completeTwoStep(challenge, { code: totp(key, confirmedAt) }, { current: null }),
        )
      ).message,
    ).toBe("That code has already been used. Wait for the next one in your authenticator app.");
    const next = totp(key, Date.now() + STEP_MS);
    const signedIn = await shop.services.signInFlow.completeTwoStep(challenge, { code: next }, { current: null });
    expect(signedIn.session.user?.email).toBe(email);
    expect((await shop.services.sessions.findSession(signedIn.token))?.user?.id).toBe(userId);
    // The same code again, from a new sign-in: refused. And the challenge it answered is spent.
    const again = await challengeFor(shop, email);
    expect(
      (await failureOf(shop.services.signInFlow.completeTwoStep(again, { code: next }, { current: null }))).code,
    ).toBe("WRONG_CREDENTIALS");
    expect(
      (await failureOf(shop.services.signInFlow.completeTwoStep(challenge, { code: next }, { current: null }))).code,
    ).toBe("NOT_FOUND");
    // The password alone, by any other way in, opens nothing.
    expect(
      (await failureOf(shop.services.signInFlow.signIn(password(email), { ip: "10.2.0.1", current: null }))).code,
    ).toBe("WRONG_CREDENTIALS");
  });

  it("takes a recovery code once, in any case and with or without its hyphen", async () => {
    const shop = await createTestShop(getDatabase());
    const email = uniqueEmail("shopper");
    const { userId, recoveryCodes } = await withTwoStep(shop, email);
    const code = recoveryCodes[3]!;
    const first = await challengeFor(shop, email);
    const signedIn = await shop.services.signInFlow.completeTwoStep(
      first,
      { recoveryCode: code.replace("-", "").toUpperCase() },
      { current: null },
    );
    expect(signedIn.session.user?.id).toBe(userId);
    const second = await challengeFor(shop, email);
    expect(
      (await failureOf(shop.services.signInFlow.completeTwoStep(second, { recoveryCode: code }, { current: null })))
        .message,
    ).toBe("That recovery code is not right, or has already been used.");
    expect((await shop.services.twoStep.getStatus(userId, email)).recoveryCodesLeft).toBe(9);
  });

  it("a password reset link changes the password but signs in an account with two-step on only with its code", async () => {
    const shop = await createTestShop(getDatabase());
    const email = uniqueEmail("shopper");
    await withTwoStep(shop, email);
    await shop.services.accountFlows.requestPasswordReset(email, "10.2.0.9");
    const mail = await getDatabase()
      .db.selectFrom("email_outbox")
      .select("text_body")
      .where("recipient", "=", email)
      .where("kind", "=", "password-reset")
      .executeTakeFirstOrThrow();
    const token = /reset-password\?token=([\w-]+)/.exec(mail.text_body)![1]!;
    const newPassword = "amber walrus quietly juggles";
    expect(await shop.services.accountFlows.resetPassword(token, newPassword, null)).toBeNull();
    const outcome = await shop.services.signInFlow.beginSignIn(
      credentialsSchema.parse({ intent: "sign-in", email, password: newPassword }),
      { ip: "10.2.0.9", current: null },
    );
    expect("twoStepChallenge" in outcome).toBe(true);
  });

  it("locks the account's sign-in for 15 minutes after 5 wrong codes, whichever sign-in they came from", async () => {
    const shop = await createTestShop(getDatabase());
    const email = uniqueEmail("shopper");
    const { key } = await withTwoStep(shop, email);
    const right = totp(key, Date.now() + STEP_MS);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    const codes: string[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      // A fresh password step each time: starting over does not reset the count.
      const challenge = await challengeFor(shop, email);
      codes.push(
        (await failureOf(shop.services.signInFlow.completeTwoStep(challenge, { code: wrong }, { current: null }))).code,
      );
    }
    expect(codes).toEqual([
      "WRONG_CREDENTIALS",
      "WRONG_CREDENTIALS",
      "WRONG_CREDENTIALS",
      "WRONG_CREDENTIALS",
      "TOO_MANY_ATTEMPTS",
    ]);
    const locked = await failureOf(
      shop.services.signInFlow.completeTwoStep(await challengeFor(shop, email), { code: right }, { current: null }),
    );
    expect(locked.code).toBe("TOO_MANY_ATTEMPTS");
    expect(locked.message).toBe("Too many wrong codes. Sign-in is locked for 15 minutes.");
    expect(locked.retryAfterSeconds).toBeGreaterThan(14 * 60);
  });

  it("an operator resets another's two-step (audit-logged); OPERATOR_RESET_TWO_STEP resets the start-up operator's", async () => {
    const owner = uniqueEmail("owner");
    const shop = await createTestShop(getDatabase(), { operator: { email: owner, password: PASSWORD } });
    const colleague = uniqueEmail("colleague");
    await withTwoStep(shop, colleague);
    const actor = { id: null, email: owner };
    await shop.services.twoStep.resetForOperator(actor, colleague);
    const outcome = await shop.services.signInFlow.beginSignIn(password(colleague), { ip: "10.2.0.2", current: null });
    expect("session" in outcome).toBe(true);
    expect((await failureOf(shop.services.twoStep.resetForOperator(actor, colleague))).code).toBe("NOT_FOUND");
    const audit = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["operator_email", "action", "before", "after"])
      .where("subject", "=", colleague)
      .execute();
    expect(audit).toEqual([
      { operator_email: owner, action: "two-step.reset", before: { twoStep: "on" }, after: { twoStep: "off" } },
    ]);

    // The sole owner's lost phone: its own setup, then a restart with the variable.
    const { session } = await shop.services.signInFlow.signIn(password(owner), { ip: "10.2.0.3", current: null });
    await shop.services.twoStep.beginSetup(session.user!.id);
    const { pending } = await shop.services.twoStep.getStatus(session.user!.id, owner);
    await shop.services.twoStep.confirmSetup(session.user!.id, totp(decodeBase32(pending!.secret), Date.now()));
    await challengeFor(shop, owner);
    await createTestShop(getDatabase(), {
      operator: { email: owner, password: PASSWORD },
      resetOperatorTwoStep: true,
    });
    const afterRestart = await shop.services.signInFlow.beginSignIn(password(owner), { ip: "10.2.0.3", current: null });
    expect("session" in afterRestart).toBe(true);
    const startupAudit = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["operator_email", "action"])
      .where("subject", "=", owner)
      .where("action", "=", "two-step.reset")
      .execute();
    expect(startupAudit).toEqual([{ operator_email: "start-up (OPERATOR_EMAIL)", action: "two-step.reset" }]);
  });

  it("with the staff rule on, sends an operator without two-step to set it up before any console page", async () => {
    const owner = uniqueEmail("owner");
    const shop = await createTestShop(getDatabase(), { operator: { email: owner, password: PASSWORD } });
    const { token, session } = await shop.services.signInFlow.signIn(password(owner), {
      ip: "10.2.0.4",
      current: null,
    });
    const get = (path: string) =>
      shop.app.request(`http://shop.test${path}`, { headers: { Cookie: `sf_session=${token}` } });
    // The built-in processor takes test cards only: the rule is off until an owner turns it on.
    expect(await shop.services.twoStep.readPolicy()).toEqual({ isRequired: false, isDefault: true });
    expect((await get("/admin/orders")).status).not.toBe(303);

    await shop.services.twoStep.setRequiredForStaff({ id: session.user!.id, email: owner }, true);
    const page = await get("/admin/orders");
    expect(page.status).toBe(303);
    expect(page.headers.get("Location")).toBe("/account?notice=two-step-required#two-step");
    expect((await get("/admin/orders.data")).status).toBe(403);
    expect((await get("/ADMIN/")).status).toBe(303);
    // The shop's own pages are not held back.
    expect((await get("/account")).status).not.toBe(303);

    await shop.services.twoStep.beginSetup(session.user!.id);
    const { pending } = await shop.services.twoStep.getStatus(session.user!.id, owner);
    await shop.services.twoStep.confirmSetup(session.user!.id, totp(decodeBase32(pending!.secret), Date.now()));
    expect((await get("/admin/orders")).status).not.toBe(303);
    const audit = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["action", "before", "after"])
      .where("action", "=", "two-step.policy")
      .where("operator_email", "=", owner)
      .execute();
    expect(audit).toEqual([{ action: "two-step.policy", before: { required: false }, after: { required: true } }]);
    await shop.services.twoStep.setRequiredForStaff({ id: session.user!.id, email: owner }, false);
  });

  it("e-mails an operator signing in from a browser it has not used before, once per browser", async () => {
    const owner = uniqueEmail("owner");
    const shop = await createTestShop(getDatabase(), { operator: { email: owner, password: PASSWORD } });
    const { session } = await shop.services.signInFlow.signIn(password(owner), { ip: "10.2.0.5", current: null });
    const facts = { isHttps: true, ip: "203.0.113.9", userAgent: "Mozilla/5.0 (X11; Linux) Firefox/140.0" };
    const first = await shop.services.twoStep.noteConsoleSignIn(session.user!, { ...facts, cookieHeader: null });
    expect(first.isNewDevice).toBe(true);
    expect(first.setCookie).toMatch(
      /^__Host-sf_device=[\w-]{43}; Max-Age=34560000; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const cookie = first.setCookie.split(";")[0]!;
    const again = await shop.services.twoStep.noteConsoleSignIn(session.user!, { ...facts, cookieHeader: cookie });
    expect(again.isNewDevice).toBe(false);
    expect(again.setCookie.split(";")[0]).toBe(cookie);
    const mails = await getDatabase()
      .db.selectFrom("email_outbox")
      .select(["kind", "subject", "text_body"])
      .where("recipient", "=", owner)
      .execute();
    expect(mails.map((mail) => mail.subject)).toEqual(["New sign-in to your Storefront console"]);
    expect(mails[0]!.text_body).toContain("203.0.113.9");
    expect(mails[0]!.text_body).toContain("Firefox/140.0");
    // The device cookie's value is not what the table keeps.
    const devices = await getDatabase()
      .db.selectFrom("console_devices")
      .select("device_hash")
      .where("user_id", "=", session.user!.id)
      .execute();
    expect(devices).toHaveLength(1);
    expect(cookie).not.toContain(devices[0]!.device_hash);
  });
});
