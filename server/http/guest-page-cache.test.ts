import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { policyByHashes } from "./guest-page-cache";

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const inlineScripts = (html: string) =>
  [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
const directive = (policy: string, name: string) =>
  policy
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `)) ?? "";

describeEachDatabase("a guest's pages, rendered once per catalogue version", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
  }, 60_000);
  afterAll(() => shop.close());

  const guestPage = (path: string) =>
    shop.app.request(`http://shop.test${path}`, { headers: { host: "shop.test", accept: "text/html" } });

  it("a second guest gets the same page, under a policy that allows exactly its inline scripts and style by hash", async () => {
    const first = await guestPage("/");
    const firstHtml = await first.text();
    expect(first.headers.get("content-security-policy")).toMatch(/'nonce-/);
    const second = await guestPage("/");
    const html = await second.text();
    expect(html).toBe(firstHtml);
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    const policy = second.headers.get("content-security-policy")!;
    expect(policy).not.toMatch(/nonce|unsafe-inline/);
    const scripts = inlineScripts(html);
    expect(scripts.length).toBeGreaterThan(0);
    expect(directive(policy, "script-src").split(" ").slice(1).sort()).toEqual(
      ["'self'", ...new Set(scripts.map(sha256))].sort(),
    );
    expect(directive(policy, "style-src")).toMatch(/^style-src 'self' 'sha256-[A-Za-z0-9+/=]+'$/);
    // The rest of the policy is the shop's usual one.
    expect(policy).toContain("frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'");
  });

  it("a shopper with a session gets a page rendered for them, with a fresh nonce each time", async () => {
    const browser = createBrowser(shop.app);
    await browser.postJson("/basket/add", { productId: "12321341" }, { accept: "application/json" });
    expect(browser.cookie).toBeDefined();
    const policies = [];
    for (let index = 0; index < 2; index += 1) {
      const response = await browser.send("/", { headers: { accept: "text/html" } });
      const html = await response.text();
      expect(html).toMatch(/aria-label="Basket, 1 item|>1</);
      const policy = response.headers.get("content-security-policy") ?? "";
      // The page's inline scripts run by the nonce its policy names.
      const nonce = /script-src 'self' 'nonce-([^']+)'/.exec(policy)?.[1];
      expect(html).toContain(`<script nonce="${nonce}"`);
      policies.push(policy);
    }
    expect(policies[0]).toMatch(/'nonce-/);
    expect(policies[1]).toMatch(/'nonce-/);
    expect(policies[1]).not.toBe(policies[0]);
    // The same page's data, as the enhanced page fetches it on a navigation, runs no inline code: no nonce.
    const data = await browser.send("/products/the-lean-startup.data");
    expect(data.status).toBe(200);
    expect(data.headers.get("content-security-policy")).toMatch(/script-src 'self'; style-src 'self';/);
  });

  it("a change to the catalogue is on the next guest page", async () => {
    const before = await (await guestPage("/products/the-lean-startup")).text();
    expect(before).toContain("$11.96");
    await shop.services.catalogue.updateProduct("12321341", { priceCents: 1_299 });
    try {
      const after = await (await guestPage("/products/the-lean-startup")).text();
      expect(after).toContain("$12.99");
      expect(await (await guestPage("/")).text()).toContain("$12.99");
    } finally {
      await shop.services.catalogue.updateProduct("12321341", { priceCents: 1_196 });
    }
  });
});

describe("policyByHashes", () => {
  const policy = "default-src 'self'; script-src 'self' 'nonce-abc'; style-src 'self' 'nonce-abc'; img-src 'self'";

  it("puts each inline script's hash in script-src and each style's in style-src, leaving scripts with a src alone", () => {
    const html = `<style nonce="abc">p{}</style><script nonce="abc">a()</script><script src="/x.js"></script><script nonce="abc" type="text/x-held">b()</script>`;
    expect(policyByHashes(policy, html)).toBe(
      `default-src 'self'; script-src 'self' ${sha256("a()")} ${sha256("b()")}; style-src 'self' ${sha256("p{}")}; img-src 'self'`,
    );
  });

  it("keeps nothing for a page with an inline event handler, which no hash could allow", () => {
    expect(policyByHashes(policy, `<button onclick="x()">Buy</button>`)).toBeUndefined();
  });
});
