import { beforeAll, expect, it } from "vitest";
import { addDeliveryAddress, createBrowser, createTestShop } from "#server/testing/test-app";
import { credentialsSchema } from "#shared/account";
import { describeEachDatabase } from "#server/testing/test-database";
import { BOOK, ECHO } from "./security-fixtures";

/**
 * The security headers on every kind of response the shop gives (a JSON route, a redirect, each kind of error, a
 * 404 as JSON and as a page, the built-in processor, the webhook, a compressed body, HEAD), in development and in
 * production, and the attributes of the session cookie. Checked as a browser would read them.
 */

type Shop = Awaited<ReturnType<typeof createTestShop>>;
type Browser = ReturnType<typeof createBrowser>;

/** One kind of response, made the way a browser or a caller would ask for it. */
const RESPONSE_KINDS: { kind: string; status: number; make: (browser: Browser) => Promise<Response> }[] = [
  { kind: "a JSON read (GET /basket)", status: 200, make: (browser) => browser.get("/basket") },
  {
    kind: "a JSON write (POST /basket/add)",
    status: 201,
    make: (browser) => browser.postJson("/basket/add", { productId: BOOK }),
  },
  { kind: "the health check", status: 200, make: (browser) => browser.get("/healthz") },
  {
    kind: "a form post's redirect",
    status: 303,
    make: (browser) => browser.postForm("/basket/add", { productId: BOOK, returnTo: "/checkout" }),
  },
  {
    kind: "a refused form post's redirect",
    status: 303,
    make: (browser) => browser.postForm("/basket/add", { productId: "nope" }),
  },
  { kind: "a 400 for a bad body", status: 400, make: (browser) => browser.postJson("/basket/add", { productId: 1 }) },
  {
    kind: "a 403 for a cross-site post",
    status: 403,
    make: (browser) => browser.postJson("/basket/empty", {}, { origin: "https://evil.example" }),
  },
  {
    kind: "a 409 for a tampered total",
    status: 409,
    make: (browser) => browser.send("/payments/create?total=1", { method: "POST" }),
  },
  {
    kind: "a 413 for a huge body",
    status: 413,
    make: (browser) => browser.postJson("/basket/add", { productId: "x".repeat(40_000) }),
  },
  {
    kind: "a 415 for another body type",
    status: 415,
    make: (browser) =>
      browser.send("/basket/add", { method: "POST", body: "<x/>", headers: { "content-type": "application/xml" } }),
  },
  {
    kind: "a 422 for an unknown product",
    status: 422,
    make: (browser) => browser.postJson("/basket/add", { productId: "nope" }),
  },
  // The shop is not listening, so the processor cannot be reached: the one 5xx a caller can bring about on purpose.
  {
    kind: "a 502 when the processor cannot be reached",
    status: 502,
    make: async (browser) => {
      await addDeliveryAddress(browser);
      return browser.send("/payments/create?total=1196", { method: "POST" });
    },
  },
  { kind: "a 404 as JSON", status: 404, make: (browser) => browser.get("/nothing-here") },
  {
    kind: "a 404 as a page",
    status: 404,
    make: (browser) => browser.send("/nothing-here", { headers: { accept: "text/html" } }),
  },
  { kind: "a HEAD request", status: 200, make: (browser) => browser.send("/basket", { method: "HEAD" }) },
  {
    kind: "a gzip-compressed body",
    status: 200,
    make: async (browser) => {
      // Six lines of the shop's six products: a body over the compression threshold.
      for (const productId of [BOOK, ECHO, "49538094", "4903850", "3254354345", "90829332"])
        await browser.postJson("/basket/add", { productId });
      const response = await browser.send("/basket", { headers: { "accept-encoding": "gzip" } });
      expect(response.headers.get("content-encoding")).toBe("gzip");
      return response;
    },
  },
  {
    kind: "the processor's 401",
    status: 401,
    make: (browser) => browser.send("/_processor/v1/payment_intents", { method: "POST" }),
  },
  {
    kind: "the processor's 404",
    status: 404,
    make: (browser) => browser.send("/_processor/v1/charges", { method: "POST" }),
  },
  {
    kind: "the webhook's 400",
    status: 400,
    make: (browser) =>
      browser.send("/webhooks/stripe", { method: "POST", body: "{}", headers: { "stripe-signature": "t=1,v1=00" } }),
  },
];

/** The policy's directives by name: "script-src 'self' 'nonce-x'" → { "script-src": ["'self'", "'nonce-x'"] }. */
function directivesOf(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy
      .split(";")
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name?.toLowerCase(), values]),
  );
}

function expectSecurityHeaders(response: Response, { overHttps }: { overHttps: boolean }) {
  const headers = response.headers;
  const policy = headers.get("content-security-policy") ?? "";
  const directives = directivesOf(policy);
  // Scripts only from this origin: none of these answers is a page, so none names a nonce (a page's is tested with
  // the pages, in guest-page-cache.test.ts), and nothing inline or evaluated may ever run.
  expect(directives["script-src"]).toEqual(["'self'"]);
  expect(directives["style-src"]).toEqual(["'self'"]);
  expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(directives["default-src"]).toEqual(["'self'"]);
  expect(directives["frame-ancestors"]).toEqual(["'none'"]);
  expect(directives["object-src"]).toEqual(["'none'"]);
  expect(directives["base-uri"]).toEqual(["'self'"]);
  expect(directives["form-action"]).toEqual(["'self'"]);
  expect(headers.get("x-frame-options")).toBe("DENY");
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(["no-referrer", "same-origin", "strict-origin", "strict-origin-when-cross-origin"]).toContain(
    headers.get("referrer-policy"),
  );
  expect(headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const hsts = headers.get("strict-transport-security");
  if (overHttps) {
    expect(hsts).toMatch(/^max-age=(\d+); includeSubDomains/);
    expect(Number(/max-age=(\d+)/.exec(hsts ?? "")?.[1])).toBeGreaterThanOrEqual(365 * 24 * 60 * 60);
  } else {
    // Over plain HTTP HSTS would be ignored at best, and pin a LAN address to HTTPS at worst.
    expect(hsts).toBeNull();
  }
}

/** A Set-Cookie header's attributes, by lower-case name ("httponly": "", "samesite": "Lax", …). */
function cookieAttributes(setCookie: string) {
  const [pair = "", ...attributes] = setCookie.split(";").map((part) => part.trim());
  const [name = "", value = ""] = pair.split("=");
  return {
    name,
    value,
    attributes: Object.fromEntries(
      attributes.map((attribute) => {
        const [key = "", ...rest] = attribute.split("=");
        return [key.toLowerCase(), rest.join("=")];
      }),
    ) as Record<string, string>,
  };
}

for (const overHttps of [false, true]) {
  const mode = overHttps ? "over HTTPS" : "over plain HTTP";
  const cookieName = overHttps ? "__Host-sf_session" : "sf_session";

  describeEachDatabase(`security headers ${mode}`, (getDatabase) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createTestShop(getDatabase());
    });
    /** A browser that reaches the shop by this scheme. */
    const newBrowser = () =>
      createBrowser({
        request: (url, init) => shop.app.request(overHttps ? url.replace(/^http:/, "https:") : url, init),
      });
    /** A browser whose basket holds a book, so totals and payments have something to price. */
    const shopper = async () => {
      const browser = newBrowser();
      await browser.postJson("/basket/add", { productId: BOOK });
      return browser;
    };

    it.each(RESPONSE_KINDS)(`$kind carries every security header (${mode})`, async ({ status, make }) => {
      const response = await make(await shopper());
      expect(response.status).toBe(status);
      expectSecurityHeaders(response, { overHttps });
    });

    it(`each response gets its own request id (${mode})`, async () => {
      const browser = newBrowser();
      const responses = await Promise.all(Array.from({ length: 5 }, () => browser.get("/basket")));
      expect(new Set(responses.map((response) => response.headers.get("x-request-id"))).size).toBe(5);
    });

    it(`the session cookie is HttpOnly, SameSite=Lax, site-wide${overHttps ? ", Secure and __Host- prefixed" : ", and not Secure over plain HTTP"}`, async () => {
      const browser = newBrowser();
      const response = await browser.postJson("/basket/add", { productId: BOOK });
      const cookie = cookieAttributes(response.headers.get("set-cookie") ?? "");
      expect(cookie.name).toBe(cookieName);
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookie.attributes).toHaveProperty("httponly");
      expect(cookie.attributes.samesite).toBe("Lax");
      expect(cookie.attributes.path).toBe("/");
      expect(cookie.attributes).not.toHaveProperty("domain");
      expect("secure" in cookie.attributes).toBe(overHttps);
      const expires = new Date(cookie.attributes.expires ?? "").getTime();
      expect(expires - Date.now()).toBeGreaterThan(29 * 24 * 60 * 60 * 1000);
      expect(expires - Date.now()).toBeLessThanOrEqual(30 * 24 * 60 * 60 * 1000);
      // Only the one cookie, set once.
      expect(response.headers.getSetCookie()).toHaveLength(1);
    });

    it(`signing out clears the cookie at once, site-wide${overHttps ? ", Secure" : ""}`, async () => {
      const browser = await shopper();
      const token = browser.cookie?.split("=")[1];
      const signedIn = await shop.services.signInFlow.signIn(
        credentialsSchema.parse({
          intent: "register",
          email: `headers${Date.now()}${overHttps}@example.com`,
          password: "correct horse battery",
        }),
        { ip: "10.90.0.1", current: await shop.services.sessions.findSession(token) },
      );
      const response = await browser.postJson("/logout", {}, { cookie: `${cookieName}=${signedIn.token}` });
      expect(response.status).toBe(200);
      expectSecurityHeaders(response, { overHttps });
      const cookie = cookieAttributes(response.headers.get("set-cookie") ?? "");
      expect(cookie).toMatchObject({ name: cookieName, value: "" });
      expect(cookie.attributes["max-age"]).toBe("0");
      expect(cookie.attributes.path).toBe("/");
      expect("secure" in cookie.attributes).toBe(overHttps);
    });

    it(`a request that changes nothing about the session sets no cookie (${mode})`, async () => {
      const browser = await shopper();
      for (const response of [
        await browser.get("/basket"),
        await browser.postJson("/basket/add", { productId: ECHO }),
        await browser.get("/healthz"),
      ]) {
        expect(response.headers.get("set-cookie")).toBeNull();
      }
      const stranger = await newBrowser().get("/basket");
      expect(stranger.headers.get("set-cookie")).toBeNull();
    });
  });
}
