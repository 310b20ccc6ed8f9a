import { createRequire } from "node:module";
import { expect, test, type Page } from "@playwright/test";
import { guestBuysTheBook } from "./support/guest-buys";
import { OPERATOR } from "./support/operator";

const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// axe is injected as a script, which the shop's Content-Security-Policy would rightly refuse.
test.use({ bypassCSP: true });

async function seriousViolations(page: Page) {
  await page.addScriptTag({ path: axeSource });
  const results = await page.evaluate(async () =>
    (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run(),
  );
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => violation.id);
}

test("the operator finds a shopper's order, ships it, refunds part of it; the shopper sees both and both e-mails are written", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const email = `console.orders.${Date.now()}@example.com`;
  const shopper = await browser.newPage();
  const number = await guestBuysTheBook(shopper, email);

  const page = await browser.newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL("/");
  await page.goto("/admin/orders");
  await expect(page.getByRole("heading", { name: "Orders" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel("Order number or e-mail").fill(email);
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: number }).click();
  await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
  await expect(page.getByText(/visa ending 4242/)).toBeVisible();
  await expect(page.getByText(/pi_\w+/).first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByLabel("Carrier").fill("UPS");
  await page.getByLabel("Tracking number").fill("1Z999AA10123456784");
  await page.getByRole("button", { name: "Mark as shipped" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Marked as shipped." })).toBeVisible();

  // Above what was paid: refused with the most that can be refunded, under the field, the summary focused.
  await page.getByLabel("Amount").fill("100");
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Please correct the following" })).toBeFocused();
  await expect(page.getByText("You can refund at most $11.96.").first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel("Amount").fill("5.00");
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  // Asked first, naming the amount and the card.
  await expect(page.getByRole("heading", { name: "Refund $5.00 to Visa ending in 4242?" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Refund $5.00" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Refunded $5.00." })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Partially refunded" }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: OPERATOR.email }).first()).toBeVisible();

  // The shopper sees both on the order's page.
  await shopper.goto(`/orders/${number}`);
  await expect(shopper.getByText("UPS, tracking number 1Z999AA10123456784")).toBeVisible();
  await expect(shopper.getByText("Partially refunded").first()).toBeVisible();
  await expect(shopper.getByText("$5.00").first()).toBeVisible();

  // This shop has no SMTP server: the e-mails wait in the outbox, which the console lists.
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Outbox" }).click();
  const mine = page.getByRole("row").filter({ hasText: email });
  await expect(mine.filter({ hasText: "order-shipped" })).toHaveCount(1);
  await expect(mine.filter({ hasText: "order-refunded" })).toHaveCount(1);
  expect(await seriousViolations(page)).toEqual([]);

  // The console's order pages fit a 375 px screen.
  await page.setViewportSize({ width: 375, height: 800 });
  for (const address of ["/admin/orders", `/admin/orders/${number}`, "/admin/outbox"]) {
    await page.goto(address);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, address).toBeLessThanOrEqual(0);
  }
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("Refund and Cancel and refund ask first on a page of their own, naming the amount and the card; going back refunds nothing", async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const shopperContext = await browser.newContext({ javaScriptEnabled: true });
    const number = await guestBuysTheBook(await shopperContext.newPage(), `console.confirm.${Date.now()}@example.com`);
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto("/login?returnTo=%2Fadmin%2Forders%2F" + number);
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();

    // An empty Amount: everything left, named before anything happens.
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Refund $11.96 to Visa ending in 4242?" })).toBeVisible();
    await page.getByRole("link", { name: "Keep the money, go back" }).click();
    await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
    await expect(page.getByText("Refunded", { exact: true }).locator("xpath=following-sibling::dd[1]")).toHaveText(
      "$0.00",
    );

    await page.getByRole("button", { name: "Cancel and refund" }).click();
    await expect(
      page.getByRole("heading", { name: `Cancel order ${number} and refund $11.96 to Visa ending in 4242?` }),
    ).toBeVisible();
    await page.getByRole("button", { name: "Cancel and refund $11.96" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Cancelled and refunded $11.96." })).toBeVisible();
    await shopperContext.close();
  });
});
