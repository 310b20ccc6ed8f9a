import { beforeAll, describe, expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { createBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

/**
 * The session cookie as a browser lives with it: when it is sent again, when it stops working, its name and Secure
 * flag by how the browser reached the shop, and what signing out does to a guest.
 */

const BOOK = "12321341";
const DAY = 24 * 60 * 60 * 1000;
let counter = 0;
const uniqueEmail = () => `cookie${Date.now()}${++counter}@example.com`;

type Shop = Awaited<ReturnType<typeof createTestShop>>;
type Browser = ReturnType<typeof createBrowser>;

const setCookieOf = (response: Response) => response.headers.get("set-cookie") ?? "";
const expiresOf = (setCookie: string) => new Date(/Expires=([^;]+)/i.exec(setCookie)?.[1] ?? "").getTime();
const tokenOf = (browser: Browser) => browser.cookie?.split("=")[1] ?? "";

describeEachDatabase("the session cookie", (getDatabase) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
  });
  const guestWithBasket = async () => {
    const browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    return browser;
  };
  /** Moves a session's clock back, as if it had been started `startedDaysAgo` and last seen `seenDaysAgo`. */
  const age = async (
    browser: Browser,
    { startedDaysAgo, seenDaysAgo }: { startedDaysAgo: number; seenDaysAgo: number },
  ) => {
    const session = await shop.services.sessions.findSession(tokenOf(browser));
    if (!session) throw new Error("no session");
    const lastSeen = Date.now() - seenDaysAgo * DAY;
    await getDatabase()
      .db.updateTable("sessions")
      .set({
        created_at: new Date(Date.now() - startedDaysAgo * DAY),
        last_seen_at: new Date(lastSeen),
        expires_at: new Date(lastSeen + 30 * DAY),
      })
      .where("id", "=", session.id)
      .execute();
    return session.id;
  };

  describe("sliding expiry", () => {
    it("a visit that moves the session's expiry forward sends the cookie again, expiring with it", async () => {
      const browser = await guestWithBasket();
      const sessionId = await age(browser, { startedDaysAgo: 20, seenDaysAgo: 20 });
      const token = tokenOf(browser);

      const visit = await browser.get("/basket");
      expect(visit.status).toBe(200);
      const renewed = setCookieOf(visit);
      expect(renewed).toMatch(new RegExp(`^sf_session=${token};`));
      expect(expiresOf(renewed) - Date.now()).toBeGreaterThan(29 * DAY);
      const row = await getDatabase()
        .db.selectFrom("sessions")
        .select("expires_at")
        .where("id", "=", sessionId)
        .executeTakeFirstOrThrow();
      expect(Math.abs(row.expires_at.getTime() - expiresOf(renewed))).toBeLessThan(2000);
      // The next visit that day moves nothing and sends nothing.
      expect(setCookieOf(await browser.get("/basket"))).toBe("");
    });

    it("a session ends 90 days after it started however active: the renewed cookie expires then, and the session after", async () => {
      const browser = await guestWithBasket();
      const sessionId = await age(browser, { startedDaysAgo: 89, seenDaysAgo: 2 });
      const renewed = setCookieOf(await browser.get("/basket"));
      expect(expiresOf(renewed) - Date.now()).toBeGreaterThan(0.9 * DAY);
      expect(expiresOf(renewed) - Date.now()).toBeLessThanOrEqual(DAY);

      await getDatabase()
        .db.updateTable("sessions")
        .set({ created_at: new Date(Date.now() - 91 * DAY) })
        .where("id", "=", sessionId)
        .execute();
      const afterwards = await browser.get("/basket");
      expect(((await afterwards.json()) as { basket: { count: number } }).basket.count).toBe(0);
      expect(await shop.services.sessions.findSession(tokenOf(browser))).toBeNull();
    });
  });

  describe("signing out", () => {
    it("a guest who signs out keeps their session, basket and orders: there is nothing to sign out of", async () => {
      const browser = await guestWithBasket();
      const session = await shop.services.sessions.findSession(tokenOf(browser));
      const orderId = `pi_guest${Date.now()}`;
      await getDatabase()
        .db.insertInto("orders")
        .values({
          id: orderId,
          session_id: session?.id ?? null,
          amount_cents: 1196,
          currency: "usd",
          items: JSON.stringify([
            {
              productId: "12321341",
              title: "The Lean Startup",
              priceCents: 1196,
              rating: 4,
              image: { src: "/images/products/12321341.webp", width: 400, height: 400 },
            },
          ]),
          created_at: new Date(),
        })
        .execute();

      const out = await browser.postJson("/logout", {});
      expect(out.status).toBe(200);
      expect(await out.json()).toEqual({ signedIn: false });
      expect(setCookieOf(out)).toBe("");

      const after = await shop.services.sessions.findSession(tokenOf(browser));
      expect(after?.id).toBe(session?.id);
      expect(((await (await browser.get("/basket")).json()) as { basket: { count: number } }).basket.count).toBe(1);
      const orders = await shop.services.orders.listOrders({ sessionId: after?.id ?? "" }, null);
      expect(orders.orders.map((order) => order.id)).toEqual([orderId]);
    });
  });

  it("reads the basket's count with the session, as the header counts it: a guest's basket and an account's", async () => {
    const guest = await guestWithBasket();
    await guest.postJson("/basket/add", { productId: BOOK });
    const guestSession = await shop.services.sessions.findSession(tokenOf(guest), { withBasket: true });
    expect(guestSession?.basket).toEqual(await shop.services.basket.countItems({ sessionId: guestSession!.id }));
    expect(guestSession?.basket?.count).toBe(2);

    const signedIn = await shop.services.signInFlow.signIn(
      credentialsSchema.parse({ intent: "register", email: uniqueEmail(), password: "correct horse battery" }),
      { ip: "10.91.0.2", current: null },
    );
    expect((await shop.services.sessions.findSession(signedIn.token, { withBasket: true }))?.basket).toEqual({
      count: 0,
      revision: 0,
    });
    await createBrowser(shop.app, `sf_session=${signedIn.token}`).postJson("/basket/add", { productId: BOOK });
    const account = await shop.services.sessions.findSession(signedIn.token, { withBasket: true });
    expect(account?.basket).toEqual(await shop.services.basket.countItems({ userId: account!.user!.id }));
    expect(account?.basket?.count).toBe(1);
    // Without asking, the statement is the plain session lookup.
    expect((await shop.services.sessions.findSession(signedIn.token))?.basket).toBeUndefined();
  });
  describe("Secure and __Host- by how the browser reached the shop", () => {
    const addFrom = (app: Shop["app"], url: string, headers: Record<string, string> = {}) =>
      app.request(url, {
        method: "POST",
        body: JSON.stringify({ productId: BOOK }),
        headers: { "content-type": "application/json", host: new URL(url).host, ...headers },
      });

    it("plain HTTP, in any NODE_ENV: an ordinary cookie, no HSTS, so a LAN address keeps its shoppers' baskets", async () => {
      const response = await addFrom(shop.app, "http://192.168.1.20:3000/basket/add");
      expect(setCookieOf(response)).toMatch(/^sf_session=[A-Za-z0-9_-]{43};/);
      expect(setCookieOf(response)).not.toMatch(/Secure/i);
      expect(response.headers.get("strict-transport-security")).toBeNull();
    });

    it("HTTPS: a Secure __Host- cookie and HSTS; a plain sf_session cookie is not read there", async () => {
      const response = await addFrom(shop.app, "https://shop.test/basket/add");
      expect(setCookieOf(response)).toMatch(/^__Host-sf_session=[A-Za-z0-9_-]{43};.*Secure/i);
      expect(response.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
      const token = /=([^;]+)/.exec(setCookieOf(response))?.[1];
      const asPlain = await shop.app.request("https://shop.test/basket", {
        headers: { host: "shop.test", cookie: `sf_session=${token}` },
      });
      expect(((await asPlain.json()) as { basket: { count: number } }).basket.count).toBe(0);
      const asHost = await shop.app.request("https://shop.test/basket", {
        headers: { host: "shop.test", cookie: `__Host-sf_session=${token}` },
      });
      expect(((await asHost.json()) as { basket: { count: number } }).basket.count).toBe(1);
    });

    it("X-Forwarded-Proto counts only behind a trusted proxy", async () => {
      const untrusted = await addFrom(shop.app, "http://shop.test/basket/add", { "x-forwarded-proto": "https" });
      expect(setCookieOf(untrusted)).toMatch(/^sf_session=/);
      const proxied = await createTestShop(getDatabase(), { trustedProxyHops: 1 });
      const trusted = await addFrom(proxied.app, "http://shop.test/basket/add", { "x-forwarded-proto": "https" });
      expect(setCookieOf(trusted)).toMatch(/^__Host-sf_session=.*Secure/i);
      expect(trusted.headers.get("strict-transport-security")).not.toBeNull();
    });

    it("PUBLIC_URL's scheme decides for every request", async () => {
      const https = await createTestShop(getDatabase(), { publicUrl: new URL("https://shop.example") });
      expect(setCookieOf(await addFrom(https.app, "http://10.0.0.5:3000/basket/add"))).toMatch(
        /^__Host-sf_session=.*Secure/i,
      );
      const http = await createTestShop(getDatabase(), {
        publicUrl: new URL("http://192.168.1.20:3000"),
        trustedProxyHops: 1,
      });
      const response = await addFrom(http.app, "http://192.168.1.20:3000/basket/add", { "x-forwarded-proto": "https" });
      expect(setCookieOf(response)).toMatch(/^sf_session=/);
      expect(response.headers.get("strict-transport-security")).toBeNull();
    });

    it("signing in over HTTPS sets the __Host- cookie, and signing out clears that one", async () => {
      const browser = createBrowser({
        request: (url, init) => shop.app.request(url.replace(/^http:/, "https:"), init),
      });
      const signedIn = await shop.services.signInFlow.signIn(
        credentialsSchema.parse({ intent: "register", email: uniqueEmail(), password: "correct horse battery" }),
        {
          ip: "10.91.0.1",
          current: null,
        },
      );
      const out = await browser.postJson("/logout", {}, { cookie: `__Host-sf_session=${signedIn.token}` });
      expect(setCookieOf(out)).toMatch(/^__Host-sf_session=;.*Max-Age=0.*Secure/i);
      expect(await shop.services.sessions.findSession(signedIn.token)).toBeNull();
    });
  });
});
