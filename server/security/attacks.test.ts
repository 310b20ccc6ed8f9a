import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { credentialsSchema } from "#shared/account";
import type { OrderItem, StoredOrderItem } from "#shared/orders";
import {
  addDeliveryAddress,
  confirmCard,
  createBrowser,
  createHttpBrowser,
  createTestShop,
} from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import {
  BOOK,
  BOOK_AND_ECHO_CENTS,
  ECHO,
  SHOP_ORIGIN,
  basketOf,
  expectClearRefusal,
  snapshotTables,
  startListeningShop,
  type Browser,
} from "./security-fixtures";
import { failureOf } from "#server/testing/app-error";

/**
 * Each attack a shop must refuse, one test each, named for what the attacker would notice: the refusal, and that
 * nothing changed. The first block needs no payment to succeed (the shop is not even listening, so no background
 * job writes anything while a test compares snapshots); the second pays real test cards through the built-in
 * processor over HTTP.
 */

type Services = Awaited<ReturnType<typeof createTestShop>>["services"];

const SQL_INJECTIONS = [
  "' OR 1=1 --",
  '"; drop table users; --',
  "'; delete from basket_items; --",
  "1' union select email, password_hash from users --",
];
const HTML_INJECTIONS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>'];
const INJECTIONS = [...SQL_INJECTIONS, ...HTML_INJECTIONS];

let emailCounter = 0;
const uniqueEmail = () => `attack${Date.now()}${++emailCounter}@example.com`;
const tokenOf = (cookie: string | undefined) => cookie?.split("=")[1] ?? "";

/** Signs a browser in as the login page's action does (through the sign-in flow), and returns the new cookie. */
async function signIn(
  services: Services,
  browser: Browser,
  fields: { intent: "sign-in" | "register"; email: string; password: string },
  ip = "10.20.0.1",
) {
  const current = await services.sessions.findSession(tokenOf(browser.cookie));
  const next = await services.signInFlow.signIn(credentialsSchema.parse(fields), { ip, current });
  return `sf_session=${next.token}`;
}

/**
 * A response that carries an attacker's text back must not be renderable as a page: either the text is not in it,
 * or the response is JSON with nosniff (a browser navigated to it shows text, never runs markup).
 */
async function expectNotRenderedAsHtml(response: Response, payload: string) {
  const body = await response.clone().text();
  if (!body.includes(payload)) return;
  expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
}

/** Where a browser goes on this Location, resolved as its URL parser does (tabs and newlines stripped, "//" = another host). */
const redirectTarget = (response: Response) => new URL(response.headers.get("location") ?? "", SHOP_ORIGIN);

describeEachDatabase("attacks the shop refuses", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let keys: NonNullable<typeof shop.processorKeys>;
  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    keys = shop.processorKeys!;
  });
  const newBrowser = () => createBrowser(shop.app);
  const shopperWith = async (...productIds: string[]) => {
    const browser = newBrowser();
    for (const productId of productIds) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  /** Runs an attack and checks that not one row of any table changed. */
  async function expectNothingChanged(attack: () => Promise<void>) {
    const before = await snapshotTables(getDatabase().db);
    await attack();
    expect(await snapshotTables(getDatabase().db)).toEqual(before);
  }

  describe("price tampering", () => {
    it("asking to pay less than the basket costs is refused with 409 and the real total, and no payment is created", async () => {
      const browser = await shopperWith(BOOK, ECHO);
      await expectNothingChanged(async () => {
        for (const total of [0, 1, 100, 1196, BOOK_AND_ECHO_CENTS - 1, BOOK_AND_ECHO_CENTS + 1]) {
          const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
          const error = await expectClearRefusal(response, 409);
          expect(error).toMatchObject({
            code: "TOTAL_MISMATCH",
            message: "The total has changed to $110.95. Please check it and pay again.",
          });
          expect(
            (await (await browser.send(`/payments/create?total=${total}`, { method: "POST" })).json()) as object,
          ).toMatchObject({ error: { details: { totalCents: BOOK_AND_ECHO_CENTS } } });
        }
      });
    });

    it("a total that is not a whole number of cents is refused with 400 before the basket is priced", async () => {
      const browser = await shopperWith(BOOK, ECHO);
      await expectNothingChanged(async () => {
        for (const total of [
          "-11095",
          "110.95",
          "1.1095e4",
          "0x2B57",
          "+11095",
          "11095.0",
          "1109500000000",
          "",
          "NaN",
        ]) {
          const response = await browser.send(`/payments/create?total=${encodeURIComponent(total)}`, {
            method: "POST",
          });
          expect((await expectClearRefusal(response, 400)).code).toBe("BAD_REQUEST");
        }
        // The price may not be smuggled in a body either.
        const withBody = await browser.send(`/payments/create?total=${BOOK_AND_ECHO_CENTS}`, {
          method: "POST",
          body: JSON.stringify({ amount: 1 }),
          headers: { "content-type": "application/json" },
        });
        expect(await expectClearRefusal(withBody, 400)).toMatchObject({
          message: "The request was not understood. Unknown field: amount.",
        });
      });
    });
  });

  describe("cross-site requests", () => {
    const CROSS_SITE: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "null" },
      { origin: "http://shop.test:8080" },
      { origin: "https://shop.test" },
      { origin: "http://shop.test.evil.example" },
    ];
    const ROUTES: { name: string; path: string; init: () => RequestInit }[] = [
      { name: "POST /basket/add (JSON)", path: "/basket/add", init: () => json({ productId: BOOK }) },
      { name: "POST /basket/add (form)", path: "/basket/add", init: () => form({ productId: BOOK }) },
      { name: "POST /basket/remove", path: "/basket/remove", init: () => form({ productId: ECHO }) },
      { name: "POST /basket/empty", path: "/basket/empty", init: () => form({}) },
      { name: "POST /logout", path: "/logout", init: () => form({}) },
      {
        name: "POST /payments/create",
        path: `/payments/create?total=${BOOK_AND_ECHO_CENTS}`,
        init: () => ({ method: "POST" }),
      },
      { name: "POST /orders/record", path: "/orders/record", init: () => json({ paymentIntentId: "pi_123" }) },
      {
        name: "POST /webhooks/stripe",
        path: "/webhooks/stripe",
        init: () => ({ method: "POST", body: "{}", headers: { "stripe-signature": "t=1,v1=00" } }),
      },
      {
        name: "POST /_processor/v1/payment_intents (with the secret key)",
        path: "/_processor/v1/payment_intents",
        init: () => processorForm({ amount: "100", currency: "usd" }, keys.secretKey),
      },
      {
        name: "POST /_processor/v1/payment_intents/:id/confirm",
        path: "/_processor/v1/payment_intents/pi_123/confirm",
        init: () => processorForm({ client_secret: "pi_123_secret_x" }, keys.publishableKey),
      },
      {
        name: "POST to an address that does not exist",
        path: "/login",
        init: () => form({ email: "a@example.com", password: "x", intent: "sign-in" }),
      },
    ];

    it.each(ROUTES)("$name from another site is refused with 403 and changes nothing", async ({ path, init }) => {
      const browser = await shopperWith(BOOK, ECHO);
      await expectNothingChanged(async () => {
        for (const headers of CROSS_SITE) {
          const request = init();
          const response = await browser.send(path, {
            ...request,
            headers: { ...Object.fromEntries(new Headers(request.headers)), ...headers },
          });
          expect(await expectClearRefusal(response, 403)).toMatchObject({
            code: "FORBIDDEN",
            message: "This request came from another site and was refused.",
          });
          expect(response.headers.get("set-cookie")).toBeNull();
        }
      });
      expect(await basketOf(browser)).toMatchObject({ count: 2 });
      // The same request from this site's own page is not refused for where it came from.
      const request = init();
      const sameSite = await browser.send(path, {
        ...request,
        headers: {
          ...Object.fromEntries(new Headers(request.headers)),
          origin: SHOP_ORIGIN,
          "sec-fetch-site": "same-origin",
        },
      });
      expect(sameSite.status).not.toBe(403);
    });

    it("behind a trusted proxy that ends TLS, the scheme it reports is the one compared", async () => {
      const proxied = await createTestShop(getDatabase(), { trustedProxyHops: 1 });
      const overHttps = { "x-forwarded-proto": "https" };
      const browser = createBrowser(proxied.app);
      expect(
        (await browser.postJson("/basket/add", { productId: BOOK }, { ...overHttps, origin: "https://shop.test" }))
          .status,
      ).toBe(201);
      const downgraded = await browser.postJson(
        "/basket/add",
        { productId: BOOK },
        { ...overHttps, origin: "http://shop.test" },
      );
      expect(await expectClearRefusal(downgraded, 403)).toMatchObject({ code: "FORBIDDEN" });
      // Without a trusted proxy the header is only the client's word: the scheme the server was reached by counts.
      const untrusted = await newBrowser().postJson(
        "/basket/add",
        { productId: BOOK },
        { ...overHttps, origin: "https://shop.test" },
      );
      expect(await expectClearRefusal(untrusted, 403)).toMatchObject({ code: "FORBIDDEN" });
      // Over HTTPS the cookie is __Host-sf_session, which the shop reads only when the request is HTTPS too.
      const basket = await browser.send("/basket", { headers: overHttps });
      expect(((await basket.json()) as { basket: { count: number } }).basket).toMatchObject({ count: 1 });
    });
  });

  describe("sessions", () => {
    it("a session token chosen by an attacker is never adopted: the server ignores it and issues its own", async () => {
      const planted = `sf_session=${"Attacker_Chosen_Token".padEnd(43, "x")}`;
      const victim = newBrowser();
      const added = await victim.postJson("/basket/add", { productId: BOOK }, { cookie: planted });
      expect(added.status).toBe(201);
      const issued = added.headers.get("set-cookie") ?? "";
      expect(issued).toMatch(/^sf_session=[A-Za-z0-9_-]{43};/);
      expect(issued).not.toContain(tokenOf(planted));
      // The attacker's token names nothing: not the victim's basket, not any session.
      expect(await shop.services.sessions.findSession(tokenOf(planted))).toBeNull();
      const attacker = newBrowser();
      expect(
        (
          (await (await attacker.send("/basket", { headers: { cookie: planted } })).json()) as {
            basket: { count: number };
          }
        ).basket.count,
      ).toBe(0);
      expect(await basketOf(victim)).toMatchObject({ count: 1 });
    });

    it("signing in starts a new session: a token from before sign-in (perhaps planted by an attacker) is dead afterwards", async () => {
      // The attacker starts a real guest session and plants its cookie in the victim's browser.
      const attacker = await shopperWith(ECHO);
      const plantedCookie = attacker.cookie ?? "";
      const victim = newBrowser();
      const victimAdd = await victim.postJson("/basket/add", { productId: BOOK }, { cookie: plantedCookie });
      expect(victimAdd.status).toBe(201);
      expect(victimAdd.headers.get("set-cookie")).toBeNull(); // a live session is used as it is, until sign-in

      const { services } = shop;
      const current = await services.sessions.findSession(tokenOf(plantedCookie));
      const email = uniqueEmail();
      const next = await services.signInFlow.signIn(
        credentialsSchema.parse({ intent: "register", email, password: "correct horse battery" }),
        { ip: "10.20.1.1", current },
      );
      expect(next.token).not.toBe(tokenOf(plantedCookie));
      expect(await services.sessions.findSession(tokenOf(plantedCookie))).toBeNull();

      // The attacker, still holding the planted cookie, is a guest with nothing: not the account, not its basket.
      const attackerView = await attacker.send("/basket", { headers: { cookie: plantedCookie } });
      expect(((await attackerView.json()) as { basket: { count: number } }).basket.count).toBe(0);
      const attackerAdd = await attacker.postJson("/basket/add", { productId: ECHO }, { cookie: plantedCookie });
      expect(tokenOf(attackerAdd.headers.get("set-cookie")?.split(";")[0])).not.toBe(tokenOf(plantedCookie));
      // The victim's new cookie opens the account, with the guest basket moved into it.
      const victimView = await victim.send("/basket", { headers: { cookie: `sf_session=${next.token}` } });
      expect(((await victimView.json()) as { basket: { count: number } }).basket.count).toBe(2);
    });

    it("after signing out, the old cookie is a guest with an empty basket and cannot reach the account again", async () => {
      const browser = newBrowser();
      const signedIn = await signIn(shop.services, browser, {
        intent: "register",
        email: uniqueEmail(),
        password: "correct horse battery",
      });
      expect((await browser.postJson("/basket/add", { productId: BOOK }, { cookie: signedIn })).status).toBe(201);

      const out = await browser.postJson("/logout", {}, { cookie: signedIn });
      expect(out.status).toBe(200);
      expect(await out.json()).toEqual({ signedIn: false });
      expect(out.headers.get("set-cookie")).toMatch(/^sf_session=;.*Max-Age=0/);

      const reused = await browser.send("/basket", { headers: { cookie: signedIn } });
      expect(((await reused.json()) as { basket: { count: number } }).basket.count).toBe(0);
      expect(await shop.services.sessions.findSession(tokenOf(signedIn))).toBeNull();
      // A write with the old cookie starts a fresh guest session; it does not revive the old one.
      const write = await browser.postJson("/basket/add", { productId: ECHO }, { cookie: signedIn });
      expect(write.status).toBe(201);
      expect(tokenOf(write.headers.get("set-cookie")?.split(";")[0])).not.toBe(tokenOf(signedIn));
      expect(((await write.json()) as { basket: { count: number } }).basket.count).toBe(1);
      // Signing out twice with the dead cookie is harmless.
      expect((await browser.postJson("/logout", {}, { cookie: signedIn })).status).toBe(200);
    });
  });

  describe("guest session flooding", () => {
    const GUEST_SESSIONS_PER_HOUR = 3;
    let limited: Awaited<ReturnType<typeof createTestShop>>;
    beforeAll(async () => {
      // Behind a trusted proxy, so each test can speak from an address of its own.
      limited = await createTestShop(getDatabase(), { newSessionsPerIp: GUEST_SESSIONS_PER_HOUR, trustedProxyHops: 1 });
    });
    const rowCounts = async () => {
      const { db } = getDatabase();
      const count = async (table: "sessions" | "baskets" | "basket_items") =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      return { sessions: await count("sessions"), baskets: await count("baskets"), items: await count("basket_items") };
    };

    it("a client that drops its cookie every time gets a 429 with Retry-After past the per-address limit, and nothing is written", async () => {
      const address = { "x-forwarded-for": `10.60.${++emailCounter % 250}.1` };
      const cookieless = () => createBrowser(limited.app).postJson("/basket/add", { productId: BOOK }, address);
      for (let i = 0; i < GUEST_SESSIONS_PER_HOUR; i++) expect((await cookieless()).status).toBe(201);

      const before = await rowCounts();
      for (let i = 0; i < 5; i++) {
        const refused = await cookieless();
        const error = await expectClearRefusal(refused.clone(), 429);
        expect(error).toMatchObject({ code: "TOO_MANY_NEW_SESSIONS" });
        expect(error.message).toMatch(
          /^Too many new baskets have been started from your network in the last hour\. Please wait \d+ minutes? and try again\.$/,
        );
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
        expect(refused.headers.get("set-cookie")).toBeNull();
      }
      // Without JavaScript: back to the page with the sentence's code, and still nothing written.
      const byForm = await createBrowser(limited.app).postForm("/basket/add", { productId: BOOK }, address);
      expect(byForm.status).toBe(303);
      expect(redirectTarget(byForm).searchParams.get("basket-error")).toBe("TOO_MANY_NEW_SESSIONS");
      expect(await rowCounts()).toEqual(before);
    });

    it("the limit is per address and only for new sessions: a shopper who has a basket keeps using it", async () => {
      const address = { "x-forwarded-for": `10.61.${++emailCounter % 250}.1` };
      const regular = createBrowser(limited.app);
      expect((await regular.postJson("/basket/add", { productId: BOOK }, address)).status).toBe(201);
      for (let i = 1; i < GUEST_SESSIONS_PER_HOUR; i++)
        expect((await createBrowser(limited.app).postJson("/basket/add", { productId: BOOK }, address)).status).toBe(
          201,
        );
      expect((await createBrowser(limited.app).postJson("/basket/add", { productId: BOOK }, address)).status).toBe(429);
      // The shopper who already has a session is not a new one.
      for (let i = 0; i < 5; i++)
        expect((await regular.postJson("/basket/add", { productId: ECHO }, address)).status).toBe(201);
      // Another address is counted on its own.
      expect(
        (
          await createBrowser(limited.app).postJson(
            "/basket/add",
            { productId: BOOK },
            { "x-forwarded-for": `10.62.${emailCounter % 250}.1` },
          )
        ).status,
      ).toBe(201);
    });
  });

  describe("sign-in brute force", () => {
    const signInAs = (fields: { intent: "sign-in" | "register"; email: string; password: string }, ip: string) =>
      shop.services.signInFlow.signIn(credentialsSchema.parse(fields), { ip, current: null });

    it("the 11th attempt from one address at one e-mail is refused with the wait message, even with the right password", async () => {
      const email = uniqueEmail();
      const password = "correct horse battery";
      await signInAs({ intent: "register", email, password }, "10.30.0.1");
      for (let attempt = 1; attempt <= 10; attempt++) {
        expect(
          (await failureOf(signInAs({ intent: "sign-in", email, password: `guess ${attempt}` }, "10.30.1.1"))).code,
        ).toBe("WRONG_CREDENTIALS");
      }
      // The spelling of the address does not reset the count (the schema lower-cases and trims it).
      for (const spelling of [email, email.toUpperCase(), `  ${email}  `]) {
        const limited = await failureOf(signInAs({ intent: "sign-in", email: spelling, password }, "10.30.1.1"));
        expect(limited.code).toBe("TOO_MANY_ATTEMPTS");
        expect(limited.status).toBe(429);
        expect(limited.message).toMatch(/^Too many attempts\. Please wait \d+ minutes? and try again\.$/);
        expect(limited.retryAfterSeconds).toBeGreaterThan(0);
      }
      // Registering again with the same address from there is limited by the same count.
      expect((await failureOf(signInAs({ intent: "register", email, password }, "10.30.1.1"))).code).toBe(
        "TOO_MANY_ATTEMPTS",
      );
    });

    it("an attacker who fails 50 times from one address cannot lock the owner out: the owner signs in first try from another", async () => {
      const email = uniqueEmail();
      const password = "correct horse battery";
      await signInAs({ intent: "register", email, password }, "10.31.0.1");
      const attacker = "10.31.1.1";
      const failures = [];
      for (let attempt = 1; attempt <= 50; attempt++)
        failures.push(
          (await failureOf(signInAs({ intent: "sign-in", email, password: `guess ${attempt}` }, attacker))).code,
        );
      expect(failures.filter((code) => code === "WRONG_CREDENTIALS")).toHaveLength(10);
      expect(failures.filter((code) => code === "TOO_MANY_ATTEMPTS")).toHaveLength(40);

      const owner = await signInAs({ intent: "sign-in", email, password }, "10.31.2.1");
      expect(owner.session.user?.email).toBe(email);
      // The attacker is still refused, even on hitting the right password.
      expect((await failureOf(signInAs({ intent: "sign-in", email, password }, attacker))).code).toBe(
        "TOO_MANY_ATTEMPTS",
      );
    });

    it("guesses spread over many addresses meet the per-e-mail limit; an address that has not failed still signs in", async () => {
      const email = uniqueEmail();
      const password = "correct horse battery";
      await signInAs({ intent: "register", email, password }, "10.32.0.1");
      // 31 addresses, one wrong guess each: past the 30 failures an e-mail may have in 15 minutes.
      for (let i = 1; i <= 31; i++)
        expect(
          (await failureOf(signInAs({ intent: "sign-in", email, password: `guess ${i}` }, `10.32.1.${i}`))).code,
        ).toBe("WRONG_CREDENTIALS");
      // A second try from any of them is refused, right password or not.
      for (const guess of ["guess again", password]) {
        const limited = await failureOf(signInAs({ intent: "sign-in", email, password: guess }, "10.32.1.7"));
        expect(limited.code).toBe("TOO_MANY_ATTEMPTS");
        expect(limited.retryAfterSeconds).toBeGreaterThan(0);
      }
      expect((await signInAs({ intent: "sign-in", email, password }, "10.32.2.1")).session.user?.email).toBe(email);
    });
  });

  describe("SQL and HTML injection", () => {
    it.each(INJECTIONS)(
      "%s as a productId is plain data: refused, tables intact, never echoed as HTML",
      async (payload) => {
        const browser = await shopperWith(BOOK);
        await expectNothingChanged(async () => {
          const added = await browser.postJson("/basket/add", { productId: payload });
          expect((await expectClearRefusal(added.clone())).code).toMatch(/^(UNKNOWN_PRODUCT|BAD_REQUEST)$/);
          await expectNotRenderedAsHtml(added, payload);
          const addedByForm = await browser.postForm("/basket/add", { productId: payload });
          expect(addedByForm.status).toBe(303);
          expect(redirectTarget(addedByForm).searchParams.get("basket-error")).toMatch(
            /^(UNKNOWN_PRODUCT|BAD_REQUEST)$/,
          );
        });
        // Removing it is "not in your basket", not a deleted row (the basket's updated_at is touched, so compare items).
        const items = await getDatabase().db.selectFrom("basket_items").selectAll().orderBy("id").execute();
        const removed = await browser.postJson("/basket/remove", { productId: payload });
        if (removed.status === 200)
          expect(await removed.json()).toMatchObject({ removed: false, basket: { count: 1 } });
        else expect((await expectClearRefusal(removed, 400)).code).toBe("BAD_REQUEST");
        expect(await getDatabase().db.selectFrom("basket_items").selectAll().orderBy("id").execute()).toEqual(items);
        expect(await basketOf(browser)).toMatchObject({ count: 1, subtotalCents: 1196 });
      },
    );

    it.each(INJECTIONS)(
      "%s as an e-mail or password at sign-in is plain data: refused or a wrong password, users intact",
      async (payload) => {
        const { services } = shop;
        const { database } = services;
        const victim = uniqueEmail();
        await services.signInFlow.signIn(
          credentialsSchema.parse({ intent: "register", email: victim, password: "correct horse battery" }),
          { ip: "10.40.0.9", current: null },
        );
        const usersBefore = await database.db
          .selectFrom("users")
          .select(["id", "email", "password_hash"])
          .orderBy("id")
          .execute();
        const asEmail = credentialsSchema.safeParse({ intent: "sign-in", email: payload, password: "whatever" });
        if (asEmail.success) {
          const error = await failureOf(services.signInFlow.signIn(asEmail.data, { ip: "10.40.0.1", current: null }));
          expect(error.code).toBe("WRONG_CREDENTIALS");
        } else {
          expect(asEmail.error.issues[0]?.message).toBe("Enter a valid e-mail address, like name@example.com.");
        }
        const asEmailSuffix = credentialsSchema.safeParse({
          intent: "sign-in",
          email: `${payload}@example.com`,
          password: "whatever",
        });
        if (asEmailSuffix.success) {
          expect(
            (await failureOf(services.signInFlow.signIn(asEmailSuffix.data, { ip: "10.40.0.2", current: null }))).code,
          ).toBe("WRONG_CREDENTIALS");
        }
        const asPassword = await failureOf(
          services.signInFlow.signIn(credentialsSchema.parse({ intent: "sign-in", email: victim, password: payload }), {
            ip: "10.40.0.3",
            current: null,
          }),
        );
        expect(asPassword.code).toBe("WRONG_CREDENTIALS");
        expect(
          await database.db.selectFrom("users").select(["id", "email", "password_hash"]).orderBy("id").execute(),
        ).toEqual(usersBefore);
      },
    );

    it("a password made of SQL is stored only as its hash and works as a password", async () => {
      const { services } = shop;
      const { database } = services;
      const email = uniqueEmail();
      const password = '"; drop table users; --';
      await services.signInFlow.signIn(credentialsSchema.parse({ intent: "register", email, password }), {
        ip: "10.41.0.1",
        current: null,
      });
      const row = await database.db
        .selectFrom("users")
        .select("password_hash")
        .where("email", "=", email)
        .executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.password_hash).not.toContain("drop");
      const again = await services.signInFlow.signIn(credentialsSchema.parse({ intent: "sign-in", email, password }), {
        ip: "10.41.0.1",
        current: null,
      });
      expect(again.session.user?.email).toBe(email);
    });

    it.each(INJECTIONS)(
      "%s as a paymentIntentId, a query parameter or a cookie is refused, tables intact, never echoed as HTML",
      async (payload) => {
        const browser = await shopperWith(BOOK);
        await expectNothingChanged(async () => {
          const recorded = await browser.postJson("/orders/record", { paymentIntentId: payload });
          expect(await expectClearRefusal(recorded, 400)).toMatchObject({
            message: "The request was not understood. paymentIntentId: paymentIntentId must be a payment intent id.",
          });
          const recordedWithPrefix = await browser.postJson("/orders/record", { paymentIntentId: `pi_${payload}` });
          expect(recordedWithPrefix.status).toBe(400);

          const asTotal = await browser.send(`/payments/create?total=${encodeURIComponent(payload)}`, {
            method: "POST",
          });
          await expectClearRefusal(asTotal.clone(), 400);
          await expectNotRenderedAsHtml(asTotal, payload);
          const asParameterName = await browser.send(`/payments/create?total=1196&${encodeURIComponent(payload)}=1`, {
            method: "POST",
          });
          await expectClearRefusal(asParameterName.clone(), 400);
          await expectNotRenderedAsHtml(asParameterName, payload);

          const asCookie = await browser.send("/basket", {
            headers: { cookie: `sf_session=${encodeURIComponent(payload)}` },
          });
          expect(asCookie.status).toBe(200);
          expect(((await asCookie.json()) as { basket: { count: number } }).basket.count).toBe(0);
          const asCookieOnWrite = await browser.postJson(
            "/orders/record",
            { paymentIntentId: "pi_1" },
            { cookie: `sf_session=${encodeURIComponent(payload)}` },
          );
          await expectClearRefusal(asCookieOnWrite, 404);
        });
      },
    );

    it.each(INJECTIONS)("%s as a field or parameter name comes back only inside JSON with nosniff", async (payload) => {
      const browser = await shopperWith(BOOK);
      await expectNothingChanged(async () => {
        const fromShop = await browser.postJson("/basket/add", { productId: BOOK, [payload]: 1 });
        expect(await expectClearRefusal(fromShop.clone(), 400)).toMatchObject({
          message: `The request was not understood. Unknown field: ${payload}.`,
        });
        await expectNotRenderedAsHtml(fromShop, payload);
        const processor = await browser.send(
          "/_processor/v1/payment_intents",
          processorForm({ amount: "100", currency: "usd", [payload]: "1" }, keys.secretKey),
        );
        expect(processor.status).toBe(400);
        await expectNotRenderedAsHtml(processor, payload);
        // A page load of an address made of the payload gets the plain error page, with nothing of the address in it.
        const page = await browser.send(`/${encodeURIComponent(payload)}`, { headers: { accept: "text/html" } });
        expect(page.status).toBe(404);
        const text = await page.text();
        expect(text).not.toContain(payload);
        expect(text).not.toMatch(/<script|onerror/);
      });
    });
  });

  describe("open redirects through returnTo", () => {
    const OFF_SITE = [
      "//evil.example",
      "https://evil.example",
      "/\\evil.example",
      "\\/evil.example",
      "%2F%2Fevil.example",
      "//evil.example/%2F..",
      "/%5Cevil.example",
      "https:evil.example",
      "javascript:alert(1)",
      "/.//evil.example",
      "/%2F/evil.example",
      "//shop.test@evil.example",
    ];

    it.each(OFF_SITE)(
      "returnTo %j never sends the browser off-site, after adding to the basket or signing out",
      async (returnTo) => {
        const browser = newBrowser();
        const added = await browser.postForm("/basket/add", { productId: BOOK, returnTo });
        expect(added.status).toBe(303);
        expect(redirectTarget(added).origin).toBe(SHOP_ORIGIN);
        const signedOut = await browser.postForm("/logout", { returnTo });
        expect(signedOut.status).toBe(303);
        expect(redirectTarget(signedOut).origin).toBe(SHOP_ORIGIN);
      },
    );

    it("a failed form post goes back to the page it came from only if that page is on this site", async () => {
      const browser = newBrowser();
      for (const referer of [
        "https://evil.example/page",
        "http://shop.test//evil.example/x",
        "http://shop.test/.//evil.example",
        "http://shop.test/\t/evil.example",
        "http://shop.test\\@evil.example/",
      ]) {
        const refused = await browser.postForm("/basket/add", { productId: "nope" }, { referer });
        expect(refused.status).toBe(303);
        expect(redirectTarget(refused).origin, referer).toBe(SHOP_ORIGIN);
        expect(redirectTarget(refused).searchParams.get("basket-error")).toBe("UNKNOWN_PRODUCT");
      }
    });

    // Browsers remove tabs and newlines while parsing a URL (WHATWG URL), so `Location: /\t/evil.example` would take
    // them to //evil.example: returnToSchema (shared/return-to-schema.ts) refuses every control character, on POST
    // /basket/add, /basket/remove, /basket/empty and /logout alike.
    it("returnTo with a tab (/\\t/evil.example) never sends the browser off-site", async () => {
      const browser = newBrowser();
      const added = await browser.postForm("/basket/add", { productId: BOOK, returnTo: "/\t/evil.example" });
      expect(added.status).toBe(303);
      expect(redirectTarget(added).origin).toBe(SHOP_ORIGIN);
    });

    // A Location header cannot carry CR, LF or NUL: such a returnTo is refused before the basket is touched, so the
    // shopper gets the error redirect, never a change followed by a 500.
    it("returnTo with a line break or NUL is refused (400 redirect) and the basket is not changed", async () => {
      for (const returnTo of ["/a\nb", "/a\rb", "/a\u0000b"]) {
        const browser = newBrowser();
        const added = await browser.postForm("/basket/add", { productId: BOOK, returnTo });
        expect(added.status).toBe(303);
        expect(redirectTarget(added).searchParams.get("basket-error")).toBe("BAD_REQUEST");
        expect(await basketOf(browser)).toMatchObject({ count: 0 });
      }
    });
  });
});

describeEachDatabase("attacks on payments between shoppers", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof startListeningShop>>;
  beforeAll(async () => {
    shop = await startListeningShop(getDatabase());
  });
  afterAll(() => shop.close());

  const shopperWith = async (...productIds: string[]) => {
    const browser = createHttpBrowser(shop.origin);
    for (const productId of productIds) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  const createPayment = async (browser: Browser, total: number) => {
    const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
    expect(response.status).toBe(201);
    const { clientSecret } = (await response.json()) as { clientSecret: string };
    return { clientSecret, paymentIntentId: clientSecret.split("_secret_")[0] ?? "" };
  };
  const orderOf = (id: string) =>
    getDatabase().db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirst();
  const ownerOf = async (browser: Browser) => {
    const session = await shop.services.sessions.findSession(tokenOf(browser.cookie));
    if (!session) throw new Error("no session");
    return session.user ? { userId: session.user.id } : { sessionId: session.id };
  };
  const sumOf = (items: StoredOrderItem[]) =>
    items.reduce((total, item) => total + item.priceCents * (item.quantity ?? 1), 0);

  it("an order is for exactly the priced basket, even when the basket changes between pricing and paying", async () => {
    const browser = await shopperWith(BOOK, ECHO);
    const { clientSecret, paymentIntentId } = await createPayment(browser, BOOK_AND_ECHO_CENTS);
    // Another (expensive) item goes in after pricing; the old client secret is then confirmed.
    expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
    const confirmed = await confirmCard(shop.origin, clientSecret, shop.keys.publishableKey, "4242424242424242");
    expect(confirmed.body.status).toBe("succeeded");
    expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBe(201);
    const order = await orderOf(paymentIntentId);
    expect(order?.amount_cents).toBe(BOOK_AND_ECHO_CENTS);
    expect(order?.items.map((item) => item.productId)).toEqual([BOOK, ECHO]);
    expect(sumOf(order?.items ?? [])).toBe(BOOK_AND_ECHO_CENTS);
  });

  it("the browser cannot change what an intent charges: the publishable key may not update it, and confirm takes no amount", async () => {
    const browser = await shopperWith(ECHO);
    const { clientSecret, paymentIntentId } = await createPayment(browser, 9899);
    const asPublishable = {
      authorization: `Bearer ${shop.keys.publishableKey}`,
      "content-type": "application/x-www-form-urlencoded",
    };
    const update = await fetch(`${shop.origin}/_processor/v1/payment_intents/${paymentIntentId}`, {
      method: "POST",
      headers: asPublishable,
      body: "amount=1",
    });
    expect(update.status).toBe(401);
    expect(((await update.json()) as { error: { code: string } }).error.code).toBe("secret_key_required");
    const confirmWithAmount = await fetch(`${shop.origin}/_processor/v1/payment_intents/${paymentIntentId}/confirm`, {
      method: "POST",
      headers: asPublishable,
      body: new URLSearchParams({ client_secret: clientSecret, amount: "1" }),
    });
    expect(confirmWithAmount.status).toBe(400);
    expect(((await confirmWithAmount.json()) as { error: { message: string } }).error.message).toBe(
      "Received unknown parameter: amount",
    );
    const stored = await fetch(`${shop.origin}/_processor/v1/payment_intents/${paymentIntentId}`, {
      headers: { authorization: `Bearer ${shop.keys.secretKey}` },
    });
    expect(await stored.json()).toMatchObject({ amount: 9899, status: "requires_payment_method" });
  });

  it("a payment replaced while it waited for 3-D Secure never becomes an order for another amount", async () => {
    const browser = await shopperWith(BOOK);
    const first = await createPayment(browser, 1196);
    const challenged = await confirmCard(shop.origin, first.clientSecret, shop.keys.publishableKey, "4000002760003184");
    expect(challenged.body.status).toBe("requires_action");
    // While the challenge is open, the basket grows and the page asks for the new total: a new intent replaces it.
    expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
    const second = await createPayment(browser, 1196 + 9899);
    expect(second.paymentIntentId).not.toBe(first.paymentIntentId);
    // Completing the old challenge now does not take the old amount for the new basket.
    const authenticated = await fetch(
      `${shop.origin}/_processor/v1/payment_intents/${first.paymentIntentId}/authenticate`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${shop.keys.publishableKey}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ client_secret: first.clientSecret, outcome: "complete" }),
      },
    );
    expect(authenticated.status).toBe(400);
    const recorded = await browser.postJson("/orders/record", { paymentIntentId: first.paymentIntentId });
    expect(recorded.status).toBe(409);
    expect(await orderOf(first.paymentIntentId)).toBeUndefined();
    expect(await basketOf(browser)).toMatchObject({ count: 2 });
  });

  it("another shopper's payment id gets a stranger a 404, before and after it is paid and recorded, and their order stays invisible", async () => {
    const payer = await shopperWith(BOOK, ECHO);
    const { clientSecret, paymentIntentId } = await createPayment(payer, BOOK_AND_ECHO_CENTS);
    const stranger = await shopperWith(ECHO);
    const attempt = async () => {
      const response = await stranger.postJson("/orders/record", { paymentIntentId });
      expect(await expectClearRefusal(response, 404)).toMatchObject({ message: "We could not find that payment." });
    };
    await attempt();
    expect(
      (await confirmCard(shop.origin, clientSecret, shop.keys.publishableKey, "4242424242424242")).body.status,
    ).toBe("succeeded");
    await attempt();
    expect((await payer.postJson("/orders/record", { paymentIntentId })).status).toBe(201);
    await attempt();

    // The stranger's basket is theirs; the payer's order is in the payer's list only.
    expect(await basketOf(stranger)).toMatchObject({ count: 1, items: [{ product: { id: ECHO } }] });
    expect(JSON.stringify(await (await stranger.get("/basket")).json())).not.toContain(paymentIntentId);
    expect((await shop.services.orders.listOrders(await ownerOf(stranger), null)).orders).toEqual([]);
    expect((await shop.services.orders.listOrders(await ownerOf(payer), null)).orders.map((order) => order.id)).toEqual(
      [paymentIntentId],
    );
    // Nor can the stranger read the intent from the processor with the public key, without (or with a wrong) secret.
    const asPublishable = { authorization: `Bearer ${shop.keys.publishableKey}` };
    const withoutSecret = await fetch(`${shop.origin}/_processor/v1/payment_intents/${paymentIntentId}`, {
      headers: asPublishable,
    });
    expect(withoutSecret.status).toBe(400);
    const strangerSecret = (await createPayment(stranger, 9899)).clientSecret;
    const withOtherSecret = await fetch(
      `${shop.origin}/_processor/v1/payment_intents/${paymentIntentId}?client_secret=${strangerSecret}`,
      { headers: asPublishable },
    );
    expect(withOtherSecret.status).toBe(400);
    expect(await withOtherSecret.text()).not.toContain(clientSecret);
  });

  it("a signed-in shopper's orders are not visible to the guest session that later uses the same browser", async () => {
    const browser = await shopperWith(BOOK);
    const current = await shop.services.sessions.findSession(tokenOf(browser.cookie));
    const next = await shop.services.signInFlow.signIn(
      credentialsSchema.parse({ intent: "register", email: uniqueEmail(), password: "correct horse battery" }),
      { ip: "10.50.0.1", current },
    );
    const signedIn = `sf_session=${next.token}`;
    const created = await browser.send("/payments/create?total=1196", {
      method: "POST",
      headers: { cookie: signedIn },
    });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const paymentIntentId = clientSecret.split("_secret_")[0] ?? "";
    await confirmCard(shop.origin, clientSecret, shop.keys.publishableKey, "4242424242424242");
    expect((await browser.postJson("/orders/record", { paymentIntentId }, { cookie: signedIn })).status).toBe(201);

    expect((await browser.postJson("/logout", {}, { cookie: signedIn })).status).toBe(200);
    const guest = createHttpBrowser(shop.origin);
    expect((await guest.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
    expect((await shop.services.orders.listOrders(await ownerOf(guest), null)).orders).toEqual([]);
    expect((await guest.postJson("/orders/record", { paymentIntentId }, { cookie: signedIn })).status).toBe(404);
  });

  it("every order recorded in these tests charged exactly the sum of its items and of its priced payment", async () => {
    // The processor's own webhooks may still be arriving; they only ever record the same orders.
    const { rows } = await sql<{ id: string; amount_cents: number; items: OrderItem[]; priced: number | null }>`
      select o.id, o.amount_cents, o.items, p.amount_cents as priced
      from orders o left join checkout_payments p on p.payment_intent_id = o.id`.execute(getDatabase().db);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const order of rows) {
      const items = typeof order.items === "string" ? (JSON.parse(order.items) as OrderItem[]) : order.items;
      expect(order.amount_cents, order.id).toBe(sumOf(items));
      expect(order.amount_cents, order.id).toBe(order.priced);
    }
  });
});

function json(body: unknown): RequestInit {
  return { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } };
}

function form(fields: Record<string, string>): RequestInit {
  return {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  };
}

function processorForm(fields: Record<string, string>, key: string): RequestInit {
  return {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
  };
}
