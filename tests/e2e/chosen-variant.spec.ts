import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { OPERATOR } from "./support/operator";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { expectHydrated } from "./support/hydrated";

/**
 * What the shopper chose is what they get, on a shop of its own with the demo catalogue (npm run demo-catalogue):
 * "Wireless Mouse, Silent Click" comes in Colour (Black, White) and Size (M, L), and the operator has sold out its
 * first variant, Black / M. The product page's options and "Add to Basket" are one form; cards of products in options
 * say "See options"; and what is chosen or typed while a page starts (before its scripts run) survives them.
 */
let shop: ShopProcess;
let dataDir: string;
const MOUSE = "Wireless Mouse, Silent Click";
const MOUSE_PATH = "/products/wireless-mouse-silent-click";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  dataDir = mkdtempSync(join(tmpdir(), "storefront-variants-"));
  const demo = spawnSync(process.execPath, ["scripts/demo-catalogue.js"], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "warn" },
    encoding: "utf8",
  });
  expect(demo.status, demo.stderr).toBe(0);
  shop = await startShopProcess(
    { DATA_DIR: dataDir, DATABASE_URL: "", OPERATOR_EMAIL: OPERATOR.email, OPERATOR_PASSWORD: OPERATOR.password },
    await freePort(),
  );
  // The operator sells out Black / M in the console.
  const page = await browser.newPage();
  await signInAsOperator(page);
  await page.goto(url(`/admin/products?q=${encodeURIComponent("Wireless Mouse")}`));
  await page.getByRole("link", { name: MOUSE }).first().click();
  await page.getByRole("textbox", { name: "Stock Black / M", exact: true }).fill("0");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await page.close();
});
test.afterAll(async () => {
  if (shop) await killShop(shop, "SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Signs in as the operator this shop was started with, from the sign-in page (tests/e2e/support/operator.ts). */
async function signInAsOperator(page: Page) {
  await page.goto(url("/login"));
  await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(url("/"));
}

function url(path: string): string {
  return `${shop.origin}${path}`;
}
const option = (page: Page, name: string, value: string) =>
  page.getByRole("group", { name }).getByRole("radio", { name: new RegExp(`^${value}\\b`) });
/** With JavaScript: the header counts `items` and the change is saved (tests/e2e/basket.spec.ts). */
async function basketHolds(page: Page, items: number) {
  const link = page.getByRole("link", { name: `Basket, ${items} item${items === 1 ? "" : "s"}` });
  await expect(link).toBeVisible();
  await expect(link).toHaveAttribute("aria-busy", "false");
}

/** The basket's lines as the checkout page lists them: "title|options". */
async function basketLines(page: Page): Promise<string[]> {
  await page.goto(url("/checkout"));
  return page
    .locator("main .basket-line__info")
    .evaluateAll((lines) =>
      lines.map(
        (line) =>
          `${line.querySelector(".basket-line__title")?.textContent}|${line.querySelector(".basket-line__options")?.textContent ?? ""}`,
      ),
    );
}

for (const javaScript of [true, false]) {
  test.describe(javaScript ? "with JavaScript" : "without JavaScript", () => {
    test.use({ javaScriptEnabled: javaScript });

    test("the product page opens on a variant that can be bought, and adds the options chosen, not the first ones", async ({
      page,
    }) => {
      await page.goto(url(MOUSE_PATH));
      if (javaScript) await expectHydrated(page);
      // Black / M is sold out: the page opens on Black / L.
      await expect(option(page, "Colour", "Black")).toBeChecked();
      await expect(option(page, "Size", "L")).toBeChecked();
      await expect(page.getByRole("button", { name: "Add to Basket" })).toBeEnabled();

      await option(page, "Colour", "White").check();
      await option(page, "Size", "L").check();
      // Without JavaScript the radios are sent by "Add to Basket" itself: no "Choose" first.
      await page.getByRole("button", { name: "Add to Basket" }).click();
      if (javaScript) await basketHolds(page, 1);
      else {
        await expect(page).toHaveURL(/\?variant=/);
        await expect(option(page, "Colour", "White")).toBeChecked();
        await expect(option(page, "Size", "L")).toBeChecked();
      }
      expect(await basketLines(page)).toEqual([`${MOUSE}|Colour: White, Size: L`]);
    });

    test('"Choose" shows a variant\'s availability without adding it, and a sold-out one cannot be added', async ({
      page,
    }) => {
      await page.goto(url(MOUSE_PATH));
      if (javaScript) await expectHydrated(page);
      await option(page, "Size", "M").check();
      if (!javaScript) {
        await page.getByRole("button", { name: "Choose", exact: true }).click();
        await expect(page).toHaveURL(/\?variant=[^&]+$/);
      }
      await expect(option(page, "Colour", "Black")).toBeChecked();
      await expect(option(page, "Size", "M")).toBeChecked();
      await expect(page.getByTestId("availability")).toHaveText("Out of stock");
      if (javaScript) await expect(page.getByRole("button", { name: "Add to Basket" })).toBeDisabled();
      else {
        await page.getByRole("button", { name: "Add to Basket" }).click();
        await expect(page.getByRole("alert").filter({ hasText: "This item is out of stock." })).toBeVisible();
      }
      expect(await basketLines(page)).toEqual([]);
    });

    test('cards of a product in options say "See options", a link to its page; others add from the card', async ({
      page,
    }) => {
      await page.goto(url(`/search?q=${encodeURIComponent("wireless mouse")}`));
      if (javaScript) await expectHydrated(page);
      const card = page.getByRole("article", { name: MOUSE });
      await expect(card.getByRole("button", { name: "Add to Basket" })).toHaveCount(0);
      await card.getByRole("link", { name: "See options" }).click();
      await expect(page).toHaveURL(url(MOUSE_PATH));
      await expect(page.getByRole("heading", { level: 1, name: MOUSE })).toBeVisible();
      // A product without options is still added from its card.
      await page.goto(url("/"));
      if (javaScript) await expectHydrated(page);
      // The six featured products come in no options ("More to explore" below them may hold some that do).
      const featured = page.locator(".product-shelf").first();
      await expect(featured.getByRole("link", { name: "See options" })).toHaveCount(0);
      await featured.getByRole("button", { name: "Add to Basket" }).first().click();
      if (javaScript) await basketHolds(page, 1);
      expect(await basketLines(page)).toHaveLength(1);
    });
  });
}

test.describe("choices made while a page starts", () => {
  /** Opens the page and acts at once, before its scripts have run, then waits for them to take the page over. */
  async function early(page: Page, path: string, act: () => Promise<unknown>) {
    await page.goto(url(path), { waitUntil: "domcontentloaded" });
    await act();
    await expectHydrated(page);
  }

  test("the product's options chosen before the scripts run are the ones shown and added", async ({ page }) => {
    await early(page, MOUSE_PATH, async () => {
      // A click, not Playwright's check(): check() reads the radio back at once, and a click that lands in the
      // instant React hydrates the form reads as unchanged until the choice is drawn a moment later. What the
      // shopper sees once the page has settled is asserted below.
      await option(page, "Colour", "White").click();
      await option(page, "Size", "M").click();
    });
    await expect(option(page, "Colour", "White")).toBeChecked();
    await expect(option(page, "Size", "M")).toBeChecked();
    await expect(page).toHaveURL(/\?variant=/);
    await page.getByRole("button", { name: "Add to Basket" }).click();
    await basketHolds(page, 1);
    expect(await basketLines(page)).toEqual([`${MOUSE}|Colour: White, Size: M`]);
  });

  test("a basket quantity chosen before the scripts run is kept", async ({ page }) => {
    await page.goto(url("/"));
    await expectHydrated(page);
    await page.getByRole("button", { name: "Add to Basket" }).first().click();
    await basketHolds(page, 1);
    await early(page, "/checkout", () => page.getByRole("combobox", { name: /^Quantity of / }).selectOption("3"));
    await basketHolds(page, 3);
    await page.reload();
    await expect(page.getByRole("combobox", { name: /^Quantity of / })).toHaveValue("3");
  });

  test("the delivery address typed before the scripts run is kept, its country with the fields that follow it", async ({
    page,
  }) => {
    await page.goto(url("/"));
    await expectHydrated(page);
    await page.getByRole("button", { name: "Add to Basket" }).first().click();
    await basketHolds(page, 1);
    await early(page, "/payment", async () => {
      await page.getByLabel("Full name").fill("Ada Early");
      await page.getByLabel("Country").selectOption("CA");
    });
    await expect(page.getByLabel("Full name")).toHaveValue("Ada Early");
    await expect(page.getByLabel("Country")).toHaveValue("CA");
    // Canada's fields: a region typed in, a postal code; not the United States' state list.
    await expect(page.getByRole("textbox", { name: "Region" })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Postal code", exact: true })).toBeVisible();
  });

  test("sign-in and registration keep what was typed before the scripts run", async ({ page }) => {
    await early(page, "/login", async () => {
      await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
      await page.getByLabel("Password").fill(OPERATOR.password);
    });
    await expect(page.getByLabel("E-mail", { exact: true })).toHaveValue(OPERATOR.email);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));

    const newcomer = await page.context().browser()!.newPage();
    const email = `early-${Date.now()}@example.com`;
    await newcomer.goto(url("/login"), { waitUntil: "domcontentloaded" });
    await newcomer.getByLabel("E-mail", { exact: true }).fill(email);
    await newcomer.getByLabel("Password").fill("violet tractor harbour pickle early");
    await expectHydrated(newcomer);
    await expect(newcomer.getByLabel("E-mail", { exact: true })).toHaveValue(email);
    await newcomer.getByRole("button", { name: "Create your account" }).click();
    await expect(newcomer.getByText(`Hello ${email}`)).toBeVisible();
    await newcomer.close();
  });

  test("a search typed before the scripts run is kept and searched for", async ({ page }) => {
    const box = page.getByRole("searchbox", { name: "Search Storefront" });
    await early(page, "/", () => box.fill("wireless mouse"));
    await expect(box).toHaveValue("wireless mouse");
    await box.press("Enter");
    await expect(page).toHaveURL(/\/search\?q=wireless\+mouse/);
    await expect(page.getByRole("article", { name: MOUSE })).toBeVisible();
  });

  test("the console's product form keeps what was typed before the scripts run", async ({ page }) => {
    await signInAsOperator(page);
    await early(page, "/admin/products/new", async () => {
      await page.getByLabel("Title").fill("Early Lamp");
      await page.getByLabel("Option name").first().fill("Size");
    });
    await expect(page.getByLabel("Title")).toHaveValue("Early Lamp");
    await expect(page.getByLabel("Option name").first()).toHaveValue("Size");
  });
});
