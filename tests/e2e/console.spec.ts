import { createRequire } from "node:module";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import routes from "../../app/routes";
import { expectHydrated, gotoHydrated } from "./support/hydrated";
import { OPERATOR } from "./support/operator";

const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// axe is injected as a script, which the shop's Content-Security-Policy would rightly refuse.
test.use({ bypassCSP: true });

async function signIn(
  page: Page,
  email: string,
  password: string,
  button: "Sign In" | "Create your account" = "Sign In",
) {
  await page.goto("/login");
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: button }).click();
  await expect(page).toHaveURL("/");
}

/** Serious and critical accessibility violations on the page as it is now (axe-core). */
async function seriousViolations(page: Page) {
  await page.addScriptTag({ path: axeSource });
  const results = await page.evaluate(async () =>
    (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run(),
  );
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => violation.id);
}

/** Every /admin address in the route table (app/routes.ts), a product id standing in for :id. */
function consoleAddresses(): string[] {
  type Entry = { path?: string; index?: boolean; children?: Entry[] };
  const addresses: string[] = [];
  const walk = (entries: readonly Entry[], parent: string) => {
    for (const entry of entries) {
      const path = entry.path ? `${parent.replace(/\/$/, "")}/${entry.path}` : parent;
      if (/^\/admin(\/|$)/.test(path))
        addresses.push(path.replace(":id", "12321341").replace(":number", "SF-2611-ABCD"));
      if (entry.children) walk(entry.children, path);
    }
  };
  walk(routes as unknown as Entry[], "");
  return [...new Set(addresses)];
}

test("the start-up operator creates a product with a picture, finds it on the shop and changes its price", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const title = `Console Story Desk Lamp ${Date.now()}`;
  const picture = await sharp({
    create: { width: 1000, height: 800, channels: 3, background: { r: 230, g: 180, b: 40 } },
  })
    .png()
    .toBuffer();

  await signIn(page, OPERATOR.email, OPERATOR.password);
  await page.getByRole("banner").getByRole("link", { name: "Admin" }).click();
  await expect(page).toHaveURL("/admin");
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Products" }).click();
  await expect(page).toHaveURL("/admin/products");
  await expect(page.getByRole("heading", { name: "Products" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByRole("link", { name: "New product" }).click();
  await expect(page.getByRole("heading", { name: "New product" })).toBeVisible();
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Description").fill("A lamp for a desk.\n\nWarm light, no glare.");
  await page.getByLabel("Price").fill("eighty");
  await page.getByLabel("Picture").setInputFiles({ name: "lamp.png", mimeType: "image/png", buffer: picture });
  await page.getByRole("button", { name: "Save" }).click();
  // Errors by field, and a summary that takes focus.
  const summary = page.getByRole("alert").filter({ hasText: "Please correct the following" });
  await expect(summary).toBeFocused();
  await expect(page.getByText("Enter a price in dollars and cents, like 12.99.").first()).toBeVisible();
  await expect(page.getByLabel("Title")).toHaveValue(title);
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByLabel("Price").fill("89.90");
  await page.getByLabel("Picture").setInputFiles({ name: "lamp.png", mimeType: "image/png", buffer: picture });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("heading", { name: `Edit “${title}”` })).toBeVisible();
  // Without the redirect's ?saved, so that the next "Saved." is the next save's.
  const editUrl = page.url().replace(/\?saved$/, "");
  expect(editUrl).toMatch(/\/admin\/products\/[^/?]+$/);

  // A shopper's search finds it; its page shows the price and the picture at its widths.
  await page.goto(`/search?q=${encodeURIComponent(title)}`);
  await page.getByRole("link", { name: title }).first().click();
  await expect(page).toHaveURL(/\/products\/console-story-desk-lamp-/);
  await expect(page.getByRole("heading", { level: 1, name: title, exact: true })).toBeVisible();
  await expect(page.getByText("$89.90").first()).toBeVisible();
  const image = page.locator("img.product-page__image");
  await expect(image).toHaveAttribute("srcset", /\/pictures\/[a-f0-9]{32}\.webp 200w, .* 400w, .* 800w/);
  const productUrl = page.url();
  const pictureResponse = await page.request.get((await image.getAttribute("src"))!);
  expect(pictureResponse.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");

  await page.goto(editUrl);
  await page.getByLabel("Price").fill("74.25");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await page.goto(productUrl);
  await expect(page.getByText("$74.25").first()).toBeVisible();

  // Both writes are in the audit log, under the operator's name.
  await page.goto("/admin/audit");
  await expect(page.getByRole("cell", { name: "product.update" }).first()).toBeVisible();
  await expect(page.getByText("price_cents: 8990 → 7425")).toBeVisible();
  await expect(page.getByRole("cell", { name: OPERATOR.email }).first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test("the console's pages fit a 375 px screen and work from the keyboard", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signIn(page, OPERATOR.email, OPERATOR.password);
  for (const address of ["/admin/products", "/admin/products/new", "/admin/staff", "/admin/audit"]) {
    await gotoHydrated(page, address);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, address).toBeLessThanOrEqual(0);
  }
  await page.goto("/admin/staff");
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
});

for (const who of ["guest", "shopper"] as const) {
  test(`a ${who} gets the shop's 404 page at every /admin address, before and after the page's scripts run`, async ({
    page,
  }) => {
    // Every console address, now including an e-mail's page and its HTML: more pages than 30 s allow on a busy machine.
    test.setTimeout(90_000);
    if (who === "shopper")
      await signIn(
        page,
        `console.${Date.now()}.${process.pid}@example.com`,
        "correct horse battery",
        "Create your account",
      );
    await expect(page.getByRole("banner").getByRole("link", { name: "Admin" })).toHaveCount(0);
    const addresses = consoleAddresses();
    expect(addresses.length).toBeGreaterThanOrEqual(5);
    for (const address of [...addresses, "/admin/products/new"]) {
      const response = await page.goto(address);
      expect(response?.status(), address).toBe(404);
      await expectHydrated(page, address);
      await expect(page.getByRole("heading", { name: "Page not found" }), address).toBeVisible();
      await expect(page.getByRole("banner"), address).toBeVisible();
      await expect(page.getByText("Storefront console"), address).toHaveCount(0);
    }
  });
}
