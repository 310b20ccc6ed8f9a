import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { fillDeliveryAddress } from "./support/delivery";

/**
 * A shop switched to Stripe (with made-up keys and no internet, so nothing reaches Stripe).
 * What is checked is what the shop decides: Stripe.js is asked for only by the payment page, from Stripe's site,
 * with the publishable key; the policy allows Stripe's hosts; the built-in processor is gone; and an unreachable
 * Stripe gives the shopper a clear sentence, not a broken page.
 */
test.describe.configure({ mode: "serial" });

let shop: ShopProcess;
let dataDir: string;

test.beforeAll(async () => {
  // A production server starting beside the suite's own: on a busy machine that takes most of a minute.
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "storefront-stripe-"));
  shop = await startShopProcess(
    {
      DATA_DIR: dataDir,
      STRIPE_SECRET_KEY: "sk_test_offline",
      STRIPE_PUBLISHABLE_KEY: "pk_test_offlinekey",
      STRIPE_WEBHOOK_SECRET: "whsec_offline",
    },
    await freePort(),
  );
});

test.afterAll(async () => {
  await killShop(shop, "SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

test("only the payment page asks for Stripe.js, from Stripe's site, and an unreachable Stripe is explained", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const stripeRequests: string[] = [];
  await page.route("https://**/*", async (route) => {
    stripeRequests.push(route.request().url());
    await route.abort("internetdisconnected");
  });
  await page.goto(`${shop.origin}/`);
  await page
    .getByRole("article", { name: /The Lean Startup/ })
    .getByRole("button", { name: "Add to Basket" })
    .click();
  await expect(page.getByRole("banner").getByRole("link", { name: "Basket, 1 item" })).toHaveAttribute(
    "aria-busy",
    "false",
  );
  expect(stripeRequests).toEqual([]);

  await page.goto(`${shop.origin}/payment`);
  await expect.poll(() => stripeRequests.some((url) => url.startsWith("https://js.stripe.com/"))).toBe(true);
  await expect(page.getByText("We couldn't load the secure card field.")).toBeVisible();
  await fillDeliveryAddress(page);
  // Creating the payment needs Stripe's API, which cannot be reached here: one clear sentence, nothing charged.
  await expect(page.getByRole("alert")).toContainText("We couldn't reach the payment service. Nothing was charged", {
    timeout: 45_000,
  });
  await expect(page.getByRole("button", { name: "Buy Now" })).toBeDisabled();
  expect(stripeRequests.every((url) => url.startsWith("https://js.stripe.com/"))).toBe(true);
});

test("the policy allows Stripe's hosts, the publishable key is the only key sent, and the built-in processor is not mounted", async ({
  request,
}) => {
  const home = await request.get(`${shop.origin}/`);
  expect(home.headers()["content-security-policy"]).toContain("script-src 'self' 'nonce-");
  expect(home.headers()["content-security-policy"]).toContain("https://js.stripe.com");
  // /payment with something to pay for (an empty basket's /payment sends the shopper back to the basket).
  expect((await request.post(`${shop.origin}/basket/add`, { data: { productId: "23445930" } })).status()).toBe(201);
  const payment = await (await request.get(`${shop.origin}/payment`)).text();
  expect(payment).toContain("pk_test_offlinekey");
  expect(payment).not.toContain("sk_test_offline");
  expect(payment).not.toContain("whsec_offline");
  // Stripe takes the payments: no test-mode line.
  expect(await home.text()).not.toContain("Test mode: no real payments");
  // No processor answers there: it is an unknown address like any other.
  const processor = await request.post(`${shop.origin}/_processor/v1/payment_intents`, {
    form: { amount: "100", currency: "usd" },
  });
  expect(processor.status()).toBe(404);
  expect(await processor.text()).toContain("Page not found");
});
