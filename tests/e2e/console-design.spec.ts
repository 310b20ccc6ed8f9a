import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { gotoHydrated } from "./support/hydrated";
import { sidewaysScroll, wordsBrokenMidWord } from "./support/layout";
import { OPERATOR, signInAsOperator } from "./support/operator";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";

const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// axe is injected as a script, which the shop's Content-Security-Policy would rightly refuse.
test.use({ bypassCSP: true });

async function seriousViolations(page: Page) {
  await page.addScriptTag({ path: axeSource });
  const results = await page.evaluate(async () =>
    (
      window as unknown as {
        axe: { run: () => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe.run(),
  );
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

const PAGES = [
  { address: "/admin/orders", section: "Orders", heading: "Orders" },
  { address: "/admin/products", section: "Products", heading: "Products" },
  { address: "/admin/products/new", section: "Products", heading: "New product" },
  { address: "/admin/products/import", section: "Products", heading: "Import products" },
  { address: "/admin/outbox", section: "Outbox", heading: "Outbox" },
  { address: "/admin/staff", section: "Staff", heading: "Staff" },
  { address: "/admin/audit", section: "Audit log", heading: "Audit log" },
];

for (const width of [1280, 390]) {
  test(`at ${width} px every console page has the side navigation with its page marked, a header, roomy buttons, no sideways scroll and nothing serious for axe`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height: 900 });
    await signInAsOperator(page);
    for (const { address, section, heading } of PAGES) {
      await gotoHydrated(page, address);
      const nav = page.getByRole("navigation", { name: "Console" });
      await expect(nav.getByRole("link", { name: section, exact: true }), address).toHaveAttribute(
        "aria-current",
        "page",
      );
      await expect(nav.locator('[aria-current="page"]'), address).toHaveCount(1);
      await expect(page.getByRole("heading", { level: 1, name: heading }), address).toBeVisible();
      expect(await sidewaysScroll(page), address).toBe(0);
      expect(await wordsBrokenMidWord(page, "main"), address).toEqual([]);
      const buttonHeights = await page
        .locator("main .console-button")
        .evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().height));
      for (const height of buttonHeights) expect(height, address).toBeGreaterThanOrEqual(36);
      expect(await seriousViolations(page), address).toEqual([]);
    }
    // At the side on a wide screen, across the top on a phone.
    const navBox = await page.getByRole("navigation", { name: "Console" }).boundingBox();
    const mainBox = await page.locator("main").boundingBox();
    if (width >= 1000) expect(navBox!.x + navBox!.width).toBeLessThanOrEqual(mainBox!.x + 1);
    else expect(navBox!.y + navBox!.height).toBeLessThanOrEqual(mainBox!.y + 1);

    // The products: a thumbnail and a status badge on every row; the page's main action in its header.
    await page.goto("/admin/products");
    const rows = page.locator("main table tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    for (const row of await rows.all()) {
      await expect(row.locator("img.console-thumbnail")).toHaveCount(1);
      await expect(row.locator(".console-badge")).toHaveText(/active/i);
    }
    await expect(page.locator("main header").getByRole("link", { name: "New product" })).toBeVisible();
  });
}

test("the outbox opens each e-mail as it was written: its status and attempts, its text and its HTML", async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000);
  const email = `outbox.${Date.now()}@example.com`;
  const shopper = await browser.newPage();
  await shopper.goto("/login");
  await shopper.getByLabel("E-mail", { exact: true }).fill(email);
  await shopper.getByLabel("Password").fill("correct horse battery staple");
  await shopper.getByRole("button", { name: "Create your account" }).click();
  await expect(shopper).toHaveURL("/");

  await signInAsOperator(page);
  await page.goto("/admin/outbox");
  const row = page.getByRole("row").filter({ hasText: email });
  await expect(row).toHaveCount(1);
  await row.getByRole("link", { name: "Welcome to Storefront: please confirm your e-mail" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: "Welcome to Storefront: please confirm your e-mail" }),
  ).toBeVisible();
  await expect(page.locator("dt", { hasText: "Status" }).locator("xpath=following-sibling::dd[1]")).toHaveText(
    /logged|pending|sent/,
  );
  await expect(page.locator("dt", { hasText: "Attempts" }).locator("xpath=following-sibling::dd[1]")).toHaveText(
    /^\d+$/,
  );
  await expect(page.locator("dt", { hasText: "To" }).locator("xpath=following-sibling::dd[1]")).toHaveText(email);
  await expect(page.locator(".console-email-text")).toContainText("/verify-email?token=");
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("link", { name: "Open the HTML as sent" }).click();
  await expect(page).toHaveURL(/\/admin\/outbox\/[0-9a-f-]+\/html$/);
  await expect(page.getByText(/confirm/i).first()).toBeVisible();
  await expect(page.locator("a[href*='/verify-email?token=']").first()).toBeVisible();
});

/**
 * On a production server of its own: the story changes what the home page features, which the other stories, sharing
 * the suite's shop and running beside this one, count on.
 */
test.describe("featured positions", () => {
  test.describe.configure({ timeout: 90_000 });
  let shop: ShopProcess;
  test.beforeAll(async () => {
    test.setTimeout(240_000);
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-featured-")),
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
      },
      // Beside the suite's own port (E2E_PORT) and the shipping stories' (E2E_PORT + 1).
      process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 2 : await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
  });

  test("a featured position another product holds moves that one and those after it up, so the home page shows both", async ({
    page,
  }) => {
    const url = (path: string) => `${shop.origin}${path}`;
    const title = `Featured First Lamp ${Date.now()}`;
    const picture = await sharp({
      create: { width: 600, height: 600, channels: 3, background: { r: 40, g: 120, b: 200 } },
    })
      .png()
      .toBuffer();
    await page.goto(url("/"));
    const firstBefore = (await page.getByRole("article").first().getByRole("heading").textContent()) ?? "";

    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    await page.goto(url("/admin/products/new"));
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Description").fill("A lamp that goes first.");
    await page.getByLabel("Price").fill("19.99");
    await page.getByLabel("Featured position").fill("1");
    await page.getByLabel("Picture").setInputFiles({ name: "lamp.png", mimeType: "image/png", buffer: picture });
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

    await page.goto(url("/"));
    await expect(page.getByRole("article").first().getByRole("heading")).toHaveText(title);
    await expect(page.getByRole("article").nth(1).getByRole("heading")).toHaveText(firstBefore);
    await page.goto(url(`/admin/products?q=${encodeURIComponent(firstBefore.slice(0, 30))}`));
    await expect(page.getByRole("row").filter({ hasText: firstBefore }).getByRole("cell").nth(4)).toHaveText("2");
  });
});
