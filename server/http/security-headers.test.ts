import { expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { createTestShop } from "#server/testing/test-app";

describeEachDatabase("the Content-Security-Policy", (getDatabase) => {
  const policyOf = async (options: Parameters<typeof createTestShop>[1] = {}) => {
    const { app } = await createTestShop(getDatabase(), options);
    const response = await app.request("http://shop.test/healthz", { headers: { host: "shop.test" } });
    return response.headers.get("content-security-policy") ?? "";
  };

  // A page's nonce, and its inline scripts that carry it, are tested with the pages (guest-page-cache.test.ts).
  it("allows only this origin in the default mode, and nothing inline on an answer that is not a page", async () => {
    const policy = await policyOf();
    expect(policy).toMatch(/^default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';/);
    expect(policy).toContain("frame-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/nonce|unsafe-inline|unsafe-eval|https:|\*/);
  });

  it("adds Stripe's hosts exactly where Stripe documents them, in Stripe mode", async () => {
    const policy = await policyOf({
      stripe: { secretKey: "sk_test_x", publishableKey: "pk_test_x", webhookSecret: "whsec_x" },
    });
    expect(policy).toMatch(/script-src 'self' https:\/\/js.stripe.com https:\/\/\*.js.stripe.com;/);
    expect(policy).toContain("connect-src 'self' https://api.stripe.com;");
    expect(policy).toContain("frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;");
    expect(policy).toContain("img-src 'self';");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});

describeEachDatabase("security headers on responses", (getDatabase) => {
  it("every response carries them, in the default mode", async () => {
    const { app } = await createTestShop(getDatabase());
    for (const path of ["/healthz", "/basket", "/nothing-here"]) {
      const response = await app.request(`http://shop.test${path}`, { headers: { host: "shop.test" } });
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self';/);
      expect(response.headers.get("content-security-policy")).not.toContain("stripe");
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("in Stripe mode the policy names Stripe, and HSTS is sent over HTTPS", async () => {
    const { app } = await createTestShop(getDatabase(), {
      stripe: { secretKey: "sk_test_x", publishableKey: "pk_test_x", webhookSecret: "whsec_x" },
    });
    const response = await app.request("https://shop.test/healthz", { headers: { host: "shop.test" } });
    expect(response.headers.get("content-security-policy")).toContain("https://js.stripe.com");
    expect(response.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    // The built-in processor is not mounted in Stripe mode.
    const processor = await app.request("http://shop.test/_processor/v1/payment_intents", {
      method: "POST",
      headers: { host: "shop.test" },
    });
    expect(processor.status).toBe(404);
  });
});
