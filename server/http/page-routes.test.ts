import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "#server/logger";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

/**
 * Pages, rendered by React Router as in production, answering what a shopper's address bar or a stray client can
 * send them: odd query strings and methods are the client's mistakes, answered without a 5xx and logged as such.
 */
describeEachDatabase("pages and what clients send them", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  const logLines: { level: number; msg: string; err?: { stack?: string } }[] = [];

  beforeAll(async () => {
    const destination = { write: (line: string) => void logLines.push(JSON.parse(line) as (typeof logLines)[number]) };
    shop = await createPageShop(getDatabase(), { logger: createLogger("debug", destination), trustedProxyHops: 1 });
  }, 60_000);
  afterAll(() => shop.close());

  const page = (browser: ReturnType<typeof createBrowser>, path: string) =>
    browser.send(path, { headers: { accept: "text/html" } });

  it("a POST to a page that takes none is a 405, logged below error level and without a stack", async () => {
    const browser = createBrowser(shop.app);
    const before = logLines.length;
    const response = await browser.send("/search", {
      method: "POST",
      body: new URLSearchParams({ a: "1" }),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(response.status).toBe(405);
    const lines = logLines.slice(before);
    expect(lines.some((line) => line.msg === "request")).toBe(true);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.err?.stack !== undefined)).toEqual([]);
  });

  it("a basket-error naming no known error, __proto__ included, shows the general basket message", async () => {
    const browser = createBrowser(shop.app);
    for (const code of ["__proto__", "constructor", "toString", "NOT_A_CODE"]) {
      const response = await page(browser, `/?basket-error=${code}`);
      expect(response.status, code).toBe(200);
      expect(await response.text()).toContain("Your basket could not be changed. Please try again.");
    }
    const known = await page(browser, "/?basket-error=BASKET_FULL");
    expect(await known.text()).toContain("Your basket is full: it holds at most 100 items.");
  });

  it("query parameters and form fields naming an object's inherited property (__proto__, constructor, toString) are plain unknown values", async () => {
    const browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    for (const word of ["__proto__", "constructor", "toString"]) {
      const refusal = await page(browser, `/payment?addressError=${word}`);
      expect(refusal.status, word).toBe(200);
      expect(await refusal.text()).toContain("Please check the delivery address.");
      const form = new URLSearchParams({
        name: "Ada Lovelace",
        line1: "1 Main Street",
        city: "Los Angeles",
        region: "CA",
        postalCode: "90001",
        country: word,
        email: "ada@example.com",
      });
      const posted = await browser.send("/payment", {
        method: "POST",
        body: form,
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      });
      expect(posted.status, word).toBe(422);
      expect(await posted.text()).toContain("Choose a country from the list.");
    }
    const account = createBrowser(shop.app);
    expect(
      (
        await account.postForm("/login", {
          intent: "register",
          email: "inherited-words@example.com",
          password: "violet tractor harbour pickle",
        })
      ).status,
    ).toBe(302);
    for (const word of ["__proto__", "constructor", "toString"]) {
      const notice = await page(account, `/account?notice=${word}`);
      expect(notice.status, word).toBe(200);
      await notice.arrayBuffer();
    }
  });

  it("a form field with a NUL or a lone surrogate is refused with a 400 naming the field, on the shop's forms", async () => {
    const browser = createBrowser(shop.app);
    expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    const form = new URLSearchParams({
      name: "Ada Lovelace",
      line1: "1 Main\u0000St",
      city: "Los Angeles",
      region: "CA",
      postalCode: "90001",
      country: "US",
      email: "ada@example.com",
    });
    const posted = await browser.send("/payment", {
      method: "POST",
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain("line1");
    const signIn = await browser.send("/login", {
      method: "POST",
      body: new URLSearchParams({
        intent: "register",
        email: "nul\u0000@example.com",
        password: "violet tractor harbour pickle",
      }),
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(signIn.status).toBe(400);
    expect(await signIn.text()).toContain("email");
  });

  it("an orders cursor outside the dates PostgreSQL can store shows the first page", async () => {
    const browser = createBrowser(shop.app);
    // A session of its own, so the orders query runs with the cursor.
    expect((await browser.postJson("/basket/add", { productId: "12321341" })).status).toBe(201);
    for (const before of [
      "-271821-04-20T00:00:00Z~a",
      "+275760-09-13T00:00:00.000Z~pi_1",
      "-000001-01-01T00:00:00.000Z~pi_1",
      "0000-01-01T00:00:00.000Z~pi_1",
    ]) {
      const response = await page(browser, `/orders?before=${encodeURIComponent(before)}`);
      expect(response.status, before).toBe(200);
      expect(await response.text()).toContain("You have no orders yet.");
    }
    // A cursor as the shop writes it still pages on.
    const older = await page(browser, `/orders?before=${encodeURIComponent("2026-11-21T15:34:00.000Z~pi_1")}`);
    expect(await older.text()).toContain("There are no older orders.");
  });

  it("past 60 answers of 405 in a minute, an address's odd methods are refused with 429 and Retry-After; its pages still load", async () => {
    const probe = (method: string, path: string) =>
      shop.app.request(`http://shop.test${path}`, {
        method,
        headers: { host: "shop.test", accept: "text/html", "x-forwarded-for": "198.51.100.7" },
      });
    const statuses: number[] = [];
    for (let index = 0; index < 70; index += 1) {
      const response = await probe(index % 2 === 0 ? "PROPFIND" : "PUT", `/search?n=${index}`);
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      await response.arrayBuffer();
    }
    expect(
      statuses.slice(0, 60).every((status) => status === 405),
      statuses.join(","),
    ).toBe(true);
    expect(
      statuses.slice(61).every((status) => status === 429),
      statuses.join(","),
    ).toBe(true);
    expect((await probe("GET", "/checkout")).status).toBe(200);
  });
});
