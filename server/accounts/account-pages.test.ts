import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "purple elephant umbrella";
let counter = 0;
const uniqueEmail = () => `account${Date.now()}${++counter}@example.com`;
/** Where a signed-out visit to "Your Account" is sent: the sign-in page, naming the way back. */
const SIGN_IN_FOR_ACCOUNT = "/login?returnTo=%2Faccount";

/**
 * The account's life through its pages, as a browser without JavaScript posts them, with every e-mail read from a
 * real SMTP server: registration's confirmation link, a password reset link that works once, a changed password,
 * signing out everywhere, and deleting the account with its orders kept.
 */
describeEachDatabase("the account's pages and e-mails", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createPageShop(getDatabase(), {
      smtp: { url: catcher.url, from: "orders@shop.test" },
      trustedProxyHops: 1,
    });
  }, 60_000);
  afterAll(async () => {
    await shop.close();
    await catcher.stop();
  });

  type Browser = ReturnType<typeof createBrowser>;
  const page = (browser: Browser, path: string) => browser.send(path, { headers: { accept: "text/html" } });
  const post = (browser: Browser, path: string, fields: Record<string, string>, ip = "10.20.0.1") =>
    browser.postForm(path, fields, { accept: "text/html", origin: "http://shop.test", "x-forwarded-for": ip });
  /** Delivers what the outbox holds, then the messages one address has received. */
  const mailTo = async (email: string) => {
    await shop.emailSender.deliverDue();
    return catcher.to(email);
  };
  const linkIn = async (email: string, path: string) => {
    const messages = await mailTo(email);
    const link = messages
      .flatMap((message) => message.links)
      .findLast((candidate) => new URL(candidate).pathname === path);
    if (!link) throw new Error(`no ${path} link sent to ${email}`);
    const url = new URL(link);
    return url.pathname + url.search;
  };
  const register = async (email = uniqueEmail()) => {
    const browser = createBrowser(shop.app);
    const response = await post(browser, "/login", { intent: "register", email, password: PASSWORD });
    expect(response.status).toBe(302);
    return { browser, email };
  };

  it("registering sends a confirmation link: until it is followed every page asks to confirm, after it none does", async () => {
    const { browser, email } = await register();
    const before = await (await page(browser, "/")).text();
    expect(before).toContain("Please confirm your e-mail");
    expect(before).toContain("Send again");
    expect(await (await page(browser, "/account")).text()).toContain("not confirmed yet");
    const verify = await linkIn(email, "/verify-email");
    expect(await (await page(browser, verify)).text()).toContain("your e-mail address is confirmed");
    expect(await (await page(browser, "/")).text()).not.toContain("Please confirm your e-mail");
    expect(await (await page(browser, "/account")).text()).toContain("confirmed</strong>");
  });

  it('"Send again" sends a new link and voids the old one', async () => {
    const { browser, email } = await register();
    const first = await linkIn(email, "/verify-email");
    const again = await post(browser, "/verify-email", {});
    expect(again.headers.get("location")).toBe("/account?notice=verification-sent");
    const second = await linkIn(email, "/verify-email");
    expect(second).not.toBe(first);
    expect(await (await page(browser, first)).text()).toContain("This link can no longer be used");
    expect(await (await page(browser, second)).text()).toContain("your e-mail address is confirmed");
  });

  it('answers "Forgot your password?" the same for a known and an unknown e-mail, in the same time', async () => {
    const { email } = await register();
    const unknown = uniqueEmail();
    const answer = async (address: string, ip: string) => {
      const startedAt = performance.now();
      const response = await post(createBrowser(shop.app), "/forgot-password", { email: address }, ip);
      const text = (await response.text())
        .replaceAll(address, "ADDRESS")
        .replace(/nonce="[^"]*"/g, "")
        .replaceAll("<!-- -->", "");
      return { status: response.status, text, ms: performance.now() - startedAt };
    };
    const known: number[] = [];
    const other: number[] = [];
    for (let round = 0; round < 4; round++) {
      const a = await answer(email, `10.21.0.${round}`);
      const b = await answer(unknown, `10.21.1.${round}`);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(a.text).toBe(b.text);
      expect(a.text).toContain("If an account exists for ADDRESS, we have sent a link");
      known.push(a.ms);
      other.push(b.ms);
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
    expect(Math.abs(median(known) - median(other))).toBeLessThan(100);
    expect(await mailTo(unknown)).toHaveLength(0);
  });

  it("limits reset requests per e-mail and address", async () => {
    const address = uniqueEmail();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++)
      statuses.push((await post(createBrowser(shop.app), "/forgot-password", { email: address }, "10.22.0.1")).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
  });

  it("a reset link sets a new password once, signs out every session and signs in here; a used or garbled link says so", async () => {
    const { browser: elsewhere, email } = await register();
    await post(createBrowser(shop.app), "/forgot-password", { email });
    const older = await linkIn(email, "/reset-password");
    await post(createBrowser(shop.app), "/forgot-password", { email });
    const reset = await linkIn(email, "/reset-password");
    // Asking again voids the older link.
    expect(await (await page(createBrowser(shop.app), older)).text()).toContain("This link can no longer be used");

    const here = createBrowser(shop.app);
    const form = await page(here, reset);
    expect(await form.text()).toContain("Set new password");
    const mismatch = await post(here, "/reset-password", {
      token: new URLSearchParams(reset.split("?")[1]).get("token") ?? "",
      password: NEW_PASSWORD,
      confirmPassword: "something else entirely",
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("The two passwords are not the same");

    const token = new URLSearchParams(reset.split("?")[1]).get("token") ?? "";
    const done = await post(here, "/reset-password", { token, password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    expect(done.headers.get("location")).toBe("/account?notice=password-reset");
    expect(await (await page(here, "/account")).text()).toContain(email);
    // The other browser's session is over.
    expect((await page(elsewhere, "/account")).headers.get("location")).toBe(SIGN_IN_FOR_ACCOUNT);
    // Once only.
    const again = await post(createBrowser(shop.app), "/reset-password", {
      token,
      password: "another good passphrase",
      confirmPassword: "another good passphrase",
    });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("This link can no longer be used");
    expect(await (await page(createBrowser(shop.app), "/reset-password?token=garbled")).text()).toContain(
      "Send a new link",
    );
    // The new password opens the account, and the shopper was told it changed.
    expect(
      (await post(createBrowser(shop.app), "/login", { intent: "sign-in", email, password: NEW_PASSWORD })).status,
    ).toBe(302);
    expect((await mailTo(email)).map((message) => message.subject)).toContain("Your Storefront password was changed");
  });

  it("changing the password needs the current one, keeps this session, ends the others and sends a notice", async () => {
    const { browser, email } = await register();
    const other = createBrowser(shop.app);
    expect((await post(other, "/login", { intent: "sign-in", email, password: PASSWORD })).status).toBe(302);
    const wrong = await post(browser, "/account", {
      intent: "change-password",
      currentPassword: "not it at all",
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("That is not your current password.");
    const changed = await post(browser, "/account", {
      intent: "change-password",
      currentPassword: PASSWORD,
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toContain("Your password is changed.");
    expect((await page(browser, "/account")).status).toBe(200);
    expect((await page(other, "/account")).headers.get("location")).toBe(SIGN_IN_FOR_ACCOUNT);
    expect((await mailTo(email)).map((message) => message.subject)).toContain("Your Storefront password was changed");
  });

  it('"Sign out everywhere" ends every session of the account', async () => {
    const { browser, email } = await register();
    const other = createBrowser(shop.app);
    await post(other, "/login", { intent: "sign-in", email, password: PASSWORD });
    expect((await post(browser, "/account", { intent: "sign-out-everywhere" })).headers.get("location")).toBe("/login");
    expect((await page(browser, "/account")).headers.get("location")).toBe(SIGN_IN_FOR_ACCOUNT);
    expect((await page(other, "/account")).headers.get("location")).toBe(SIGN_IN_FOR_ACCOUNT);
  });

  it("deleting the account (with its password) erases it, its sessions and basket, keeps its orders without it, and says so by e-mail", async () => {
    const { browser, email } = await register();
    const { db } = getDatabase();
    const user = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    // An order as the checkout records it (the checkout's own tests pay for real; here only what deletion does to it matters).
    await db
      .insertInto("orders")
      .values({
        id: `pi_deleted_${counter}`,
        user_id: user.id,
        session_id: null,
        amount_cents: 1196,
        currency: "usd",
        items: JSON.stringify([
          {
            productId: "12321341",
            title: "A book",
            priceCents: 1196,
            quantity: 1,
            rating: 4,
            image: { src: "/images/book.webp", width: 1, height: 1 },
          },
        ]),
        created_at: new Date(),
      })
      .execute();
    // Its payment, as checkout keeps it: the receipt address and the delivery address it was priced with.
    await db
      .insertInto("checkout_payments")
      .values({
        payment_intent_id: `pi_deleted_${counter}`,
        user_id: user.id,
        session_id: null,
        client_secret: `pi_deleted_${counter}_secret`,
        amount_cents: 1196,
        currency: "usd",
        basket_fingerprint: "f",
        items: JSON.stringify([]),
        status: "paid",
        pending_fingerprint: null,
        paid_amount_cents: null,
        review_reason: null,
        contact_email: email,
        delivery_address: JSON.stringify({
          name: "Ada Lovelace",
          line1: "1 Analytical Way",
          line2: null,
          city: "Albany",
          region: "NY",
          postalCode: "12207",
          country: "US",
        }),
        processor: "built-in",
        livemode: false,
        pricing: null,
      })
      .execute();

    const wrong = await post(browser, "/account", { intent: "delete-account", deletePassword: "not the password" });
    expect(wrong.status).toBe(401);
    expect(await db.selectFrom("users").select("id").where("id", "=", user.id).executeTakeFirst()).toBeDefined();

    const deleted = await post(browser, "/account", { intent: "delete-account", deletePassword: PASSWORD });
    expect(deleted.headers.get("location")).toBe("/account?notice=account-deleted");
    expect(await (await page(browser, "/account?notice=account-deleted")).text()).toContain(
      "Your account has been deleted",
    );
    expect(await db.selectFrom("users").select("id").where("id", "=", user.id).executeTakeFirst()).toBeUndefined();
    expect(
      await db.selectFrom("sessions").select("id").where("user_id", "=", user.id).executeTakeFirst(),
    ).toBeUndefined();
    expect(
      await db.selectFrom("baskets").select("id").where("user_id", "=", user.id).executeTakeFirst(),
    ).toBeUndefined();
    const order = await db
      .selectFrom("orders")
      .select(["user_id", "amount_cents"])
      .where("id", "=", `pi_deleted_${counter}`)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ user_id: null, amount_cents: 1196 });
    const payment = await db
      .selectFrom("checkout_payments")
      .select(["user_id", "contact_email", "delivery_address", "amount_cents"])
      .where("payment_intent_id", "=", `pi_deleted_${counter}`)
      .executeTakeFirstOrThrow();
    expect(payment).toEqual({
      user_id: null,
      contact_email: null,
      delivery_address: {
        name: "deleted account",
        line1: "deleted account",
        line2: null,
        city: "deleted account",
        region: null,
        postalCode: "",
        country: "US",
      },
      amount_cents: 1196,
    });
    // The outbox keeps no e-mail naming the address but the last one, which says it is done.
    const messages = await mailTo(email);
    expect(messages.at(-1)?.subject).toBe("Your Storefront account was deleted");
    const kept = await db.selectFrom("email_outbox").select("kind").where("recipient", "=", email).execute();
    expect(kept.map((row) => row.kind)).toEqual(["account-deleted"]);
    expect(
      (await post(createBrowser(shop.app), "/login", { intent: "sign-in", email, password: PASSWORD })).status,
    ).toBe(401);
  });

  it("links the Conditions of Use and the Privacy Notice from the sign-in page, to real pages", async () => {
    const browser = createBrowser(shop.app);
    const login = await (await page(browser, "/login")).text();
    expect(login).toContain('href="/conditions"');
    expect(login).toContain('href="/privacy"');
    expect(login).toContain('href="/forgot-password"');
    expect(await (await page(browser, "/conditions")).text()).toContain("<h1>Conditions of Use</h1>");
    const privacy = await (await page(browser, "/privacy")).text();
    expect(privacy).toContain("Deleting your account");
    expect(privacy).toContain("Delete my account");
  });

  it('a password change and "Sign out everywhere" cancel every reset link sent before them', async () => {
    const { browser, email } = await register();
    await post(createBrowser(shop.app), "/forgot-password", { email });
    const beforeChange = await linkIn(email, "/reset-password");
    const changed = await post(browser, "/account", {
      intent: "change-password",
      currentPassword: PASSWORD,
      password: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(changed.status).toBe(200);
    expect((await page(createBrowser(shop.app), beforeChange)).status).toBe(410);
    const token = new URLSearchParams(beforeChange.split("?")[1]).get("token") ?? "";
    const used = await post(createBrowser(shop.app), "/reset-password", {
      token,
      password: "another good passphrase",
      confirmPassword: "another good passphrase",
    });
    expect(used.status).toBe(410);

    await post(createBrowser(shop.app), "/forgot-password", { email });
    const beforeSignOut = await linkIn(email, "/reset-password");
    expect(beforeSignOut).not.toBe(beforeChange);
    expect((await post(browser, "/account", { intent: "sign-out-everywhere" })).headers.get("location")).toBe("/login");
    expect((await page(createBrowser(shop.app), beforeSignOut)).status).toBe(410);
    // The password is still the one the shopper chose.
    expect(
      (await post(createBrowser(shop.app), "/login", { intent: "sign-in", email, password: NEW_PASSWORD })).status,
    ).toBe(302);
  });

  it("signing in from a page that asked for it goes back there; a way back that leaves the site is refused", async () => {
    const { email } = await register();
    const browser = createBrowser(shop.app);
    const sentTo = (await page(browser, "/account")).headers.get("location");
    expect(sentTo).toBe(SIGN_IN_FOR_ACCOUNT);
    // The page carries the way back in its form, so a browser without JavaScript posts it with the credentials.
    expect(await (await page(browser, sentTo!)).text()).toContain(
      '<input type="hidden" name="returnTo" value="/account"/>',
    );
    const signedIn = await post(browser, sentTo!, {
      intent: "sign-in",
      email,
      password: PASSWORD,
      returnTo: "/account",
    });
    expect(signedIn.headers.get("location")).toBe("/account");
    expect(await (await page(browser, "/account")).text()).toContain(email);

    // A link naming another site is not carried by the page, and a form posting one is refused before anything else.
    const stranger = createBrowser(shop.app);
    const offSite = await (await page(stranger, "/login?returnTo=%2F%2Fevil.example")).text();
    expect(offSite).not.toContain('name="returnTo"');
    // A way back that is not plain ASCII (a full-width dot, an ideographic full stop, a line separator) cannot be a
    // Location header: it is refused like the others, never a 500.
    for (const returnTo of [
      "//evil.example",
      "https://evil.example/",
      "/\\evil.example",
      "/\t/evil.example",
      "/\uff0e/x",
      "/\u3002x",
      "/\u2028",
      "/caf\u00e9",
      "\uff0f\uff0fevil.example",
    ]) {
      const refused = await post(stranger, "/login", { intent: "sign-in", email, password: PASSWORD, returnTo });
      expect(refused.status, JSON.stringify(returnTo)).toBe(400);
      expect(await refused.text()).toContain("returnTo must be a path on this site");
    }
    expect((await page(stranger, "/account")).headers.get("location")).toBe(SIGN_IN_FOR_ACCOUNT);
  });
});
