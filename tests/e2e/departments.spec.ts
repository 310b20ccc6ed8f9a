import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { expectHydrated } from "./support/hydrated";

/**
 * Browsing by department, with and without JavaScript, on a shop of its own with the demo catalogue added (npm run
 * demo-catalogue, the way an operator would), so that listings have enough products to sort, filter and page.
 */
let shop: ShopProcess;
let dataDir: string;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "storefront-departments-"));
  const demo = spawnSync(process.execPath, ["scripts/demo-catalogue.js"], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  expect(demo.status, demo.stderr).toBe(0);
  expect(demo.stdout).toContain("products added");
  // A free port: E2E_PORT + 1 is the shipping stories' shop's, which may be running beside this one.
  shop = await startShopProcess({ DATA_DIR: dataDir, DATABASE_URL: "" }, await freePort());
});
test.afterAll(async () => {
  if (shop) await killShop(shop, "SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string) => `${shop.origin}${path}`;
const prices = async (page: Page) =>
  (await page.locator("main .product-card__price").allTextContents()).map((text) => Number(text.replace(/[$,]/g, "")));
const ratings = async (page: Page) =>
  (
    await page
      .locator("main .product-card__rating [role=img]")
      .evaluateAll((stars) => stars.map((star) => star.getAttribute("aria-label") ?? ""))
  ).map((label) => Number(/Rated (\d)/.exec(label)?.[1]));
const isSorted = (values: number[], compare: (a: number, b: number) => number) =>
  values.every((value, index) => index === 0 || compare(values[index - 1]!, value) <= 0);
const breadcrumb = (page: Page) => page.getByRole("navigation", { name: "Breadcrumb" });

for (const javaScript of [true, false]) {
  test.describe(javaScript ? "with JavaScript" : "without JavaScript", () => {
    test.use({ javaScriptEnabled: javaScript });

    async function open(page: Page, path: string) {
      await page.goto(url(path));
      if (javaScript) await expectHydrated(page);
    }

    async function sortBy(page: Page, label: string) {
      await page.getByLabel("Sort by").selectOption({ label });
      // Without JavaScript the choice is sent by "Go"; with it, choosing is enough.
      if (!javaScript) await page.getByRole("button", { name: "Go", exact: true }).click();
    }

    test("a shopper opens All, then a department", async ({ page }) => {
      await open(page, "/");
      const header = page.getByRole("banner");
      if (javaScript) {
        const all = header.getByRole("button", { name: "All" });
        await all.focus();
        await page.keyboard.press("Enter");
        await expect(all).toHaveAttribute("aria-expanded", "true");
        await page.keyboard.press("Escape");
        await expect(all).toHaveAttribute("aria-expanded", "false");
        await expect(all).toBeFocused();
        await all.click();
        await header.getByRole("link", { name: "Computers", exact: true }).click();
      } else {
        await header.getByRole("link", { name: "All" }).click();
        await expect(page).toHaveURL(url("/departments"));
        await page.getByRole("main").getByRole("link", { name: "Computers", exact: true }).click();
      }
      await expect(page).toHaveURL(url("/departments/computers"));
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Computers");
      await expect(page.getByText(/^1-19 of 19 results$/)).toBeVisible();
    });

    test("sorts by price both ways", async ({ page }) => {
      await open(page, "/departments/electronics");
      await sortBy(page, "Price: Low to High");
      await expect(page).toHaveURL(url("/departments/electronics?sort=price-asc"));
      // With JavaScript the address changes a moment before the new list is drawn: wait for it.
      await expect.poll(async () => isSorted(await prices(page), (a, b) => a - b), { timeout: 10_000 }).toBe(true);
      const ascending = await prices(page);
      expect(ascending.length).toBeGreaterThan(8);
      expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
      await sortBy(page, "Price: High to Low");
      await expect(page).toHaveURL(url("/departments/electronics?sort=price-desc"));
      await expect
        .poll(async () => await prices(page), { timeout: 10_000 })
        .toEqual([...ascending].sort((a, b) => b - a));
    });

    test("filters under $25 and by 4 stars, then pages on", async ({ page }) => {
      await open(page, "/departments/books");
      await page.getByRole("link", { name: "Under $25" }).click();
      await expect(page).toHaveURL(url("/departments/books?price=0-25"));
      await expect.poll(async () => (await prices(page)).every((price) => price < 25), { timeout: 10_000 }).toBe(true);
      const cheap = await prices(page);
      expect(cheap.length).toBeGreaterThan(3);
      for (const price of cheap) expect(price).toBeLessThan(25);
      await page.getByRole("link", { name: "4 Stars & Up" }).click();
      await expect(page).toHaveURL(url("/departments/books?price=0-25&rating=4"));
      await expect.poll(async () => (await ratings(page)).every((stars) => stars >= 4), { timeout: 10_000 }).toBe(true);
      const rated = await ratings(page);
      expect(rated.length).toBeGreaterThan(0);
      expect(rated.length).toBeLessThan(cheap.length);
      for (const stars of rated) expect(stars).toBeGreaterThanOrEqual(4);

      await open(page, "/search");
      // The six and the demo's 57, less the one sold out.
      await expect(page.getByText(/^1-24 of 62 results$/)).toBeVisible();
      await page.getByRole("link", { name: "Next" }).click();
      await expect(page).toHaveURL(url("/search?page=2"));
      await expect(page.getByText(/^25-48 of 62 results$/)).toBeVisible();
      await expect(page.getByRole("link", { name: "Previous" })).toBeVisible();
    });

    test("breadcrumbs lead from a product back to its department", async ({ page }) => {
      await open(page, "/departments/monitors");
      await page.getByRole("link", { name: "27 inch QHD Monitor, 165 Hz" }).first().click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("27 inch QHD Monitor, 165 Hz");
      await expect(breadcrumb(page).getByRole("link")).toHaveText(["Home", "Computers", "Monitors"]);
      await breadcrumb(page).getByRole("link", { name: "Monitors" }).click();
      await expect(page).toHaveURL(url("/departments/monitors"));
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Monitors");
    });

    test("includes the sold-out on request, and narrows by a colour with its count", async ({ page }) => {
      const cups = page.locator(".product-card", { hasText: "Espresso Cups, Set of 6" });
      await open(page, "/departments/home-kitchen");
      await expect(page.getByText(/^1-15 of 15 results$/)).toBeVisible();
      await expect(cups).toHaveCount(0);
      const availability = page.getByRole("region", { name: "Availability" });
      await availability.getByRole("link", { name: "Include Out of Stock" }).click();
      await expect(page).toHaveURL(url("/departments/home-kitchen?stock=all"));
      await expect(page.getByText(/^1-16 of 16 results$/)).toBeVisible();
      await expect(cups.getByText("Out of stock")).toBeVisible();
      await expect(availability.getByRole("link", { name: "Include Out of Stock" })).toHaveAttribute(
        "aria-current",
        "true",
      );

      const colour = page.getByRole("region", { name: "Colour" });
      await expect(colour.getByRole("listitem").filter({ hasText: "Black" })).toHaveText("Black (2)");
      await colour.getByRole("link", { name: "Black" }).click();
      await expect(page).toHaveURL(url("/departments/home-kitchen?stock=all&colour=Black"));
      await expect(page.getByText(/^1-2 of 2 results$/)).toBeVisible();
      await expect(page.locator("main .product-card__title")).toHaveText([
        "Stoneware Mugs, Set of 4",
        "Espresso Cups, Set of 6",
      ]);
      await expect(colour.getByRole("link", { name: "Black" })).toHaveAttribute("aria-current", "true");
    });

    test("no results offers Clear all filters", async ({ page }) => {
      await open(page, "/departments/books?price=200-");
      await expect(page.getByRole("heading", { name: "No results" })).toBeVisible();
      await page.getByRole("main").getByRole("link", { name: "Clear all filters" }).first().click();
      await expect(page).toHaveURL(url("/departments/books"));
      await expect(page.getByText(/^1-13 of 13 results$/)).toBeVisible();
    });
  });
}
