import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { expectHydrated, gotoHydrated } from "./support/hydrated";
import { sidewaysScroll, wordsBrokenMidWord } from "./support/layout";
import { OPERATOR } from "./support/operator";

/**
 * What a new operator and a new shopper meet first: each story here is one thing that once tripped somebody up.
 */
const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";
const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password").fill(password);
}

test("a guest at /admin follows Sign In and, signed in as the operator, lands in the console without a reload", async ({
  page,
}) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await gotoHydrated(page, "/admin");
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page
    .getByRole("banner")
    .getByRole("link", { name: /Sign In/ })
    .click();
  await expect(page).toHaveURL(/\/login\?returnTo=%2Fadmin/);
  await expectHydrated(page);
  await fillSignIn(page, OPERATOR.email, OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/admin/);
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
  await expect(page.getByText("Hello Guest")).toHaveCount(0);
  // The operator made at start-up was never sent a link to confirm: nothing asks it to.
  await expect(page.getByText("Please confirm your e-mail")).toHaveCount(0);
  await page.goto("/");
  await expect(page.getByText("Please confirm your e-mail")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the sign-in page says "Create account" while a shopper is registering', async ({ page }) => {
  await gotoHydrated(page, "/login");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign-in");
  await fillSignIn(page, `new-${Date.now()}@example.test`, "short");
  await page.getByRole("button", { name: "Create your account" }).click();
  await expect(page.getByRole("alert")).not.toBeEmpty();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Create account");
});

for (const width of [1280, 390]) {
  test(`at ${width} px the skip link is out of sight until focused, then takes the keyboard to the page`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    await gotoHydrated(page, "/");
    const skip = page.getByRole("link", { name: "Skip to content" });
    const hidden = await skip.boundingBox();
    expect((hidden?.width ?? 0) * (hidden?.height ?? 0)).toBeLessThanOrEqual(1);
    // The test-mode line's first letter is not covered.
    const ribbon = await page.getByText("Test mode: no real payments").boundingBox();
    const atRibbonStart = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.textContent ?? "", {
      x: (ribbon?.x ?? 0) + 3,
      y: (ribbon?.y ?? 0) + (ribbon?.height ?? 0) / 2,
    });
    expect(atRibbonStart).toContain("Test mode");
    await page.keyboard.press("Tab");
    await expect(skip).toBeFocused();
    const shown = await skip.boundingBox();
    expect(shown?.width ?? 0).toBeGreaterThan(40);
    expect(shown?.height ?? 0).toBeGreaterThan(20);
  });
}

test('"Added to basket" stays on the page it was said on, not the basket page', async ({ page }) => {
  await gotoHydrated(page, "/");
  await page.getByRole("button", { name: "Add to Basket" }).first().click();
  await expect(page.getByRole("status").filter({ hasText: "Added to basket" })).toHaveCount(1);
  await expect(page.getByRole("banner").getByRole("link", { name: /^Basket,/ })).toHaveAttribute("aria-busy", "false");
  await page
    .getByRole("banner")
    .getByRole("link", { name: /^Basket,/ })
    .click();
  await expect(page).toHaveURL("/checkout");
  await expect(page.getByTestId("basket-item")).toHaveCount(1);
  await expect(page.getByText("Added to basket")).toHaveCount(0);
});

test('the header has no dead "Your Prime"', async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("banner").getByText("Prime")).toHaveCount(0);
});

test.describe("a phone's order pages", () => {
  for (const width of [1280, 390]) {
    test(`at ${width} px /checkout, /payment, /orders and the order's page fit, break no word, and stack the order's items below 600 px`, async ({
      page,
    }) => {
      test.setTimeout(60_000);
      await page.setViewportSize({ width, height: 900 });
      await gotoHydrated(page, "/");
      await page
        .getByRole("article", { name: BOOK, exact: true })
        .getByRole("button", { name: "Add to Basket" })
        .click();
      await page
        .getByRole("article", { name: ECHO, exact: true })
        .getByRole("button", { name: "Add to Basket" })
        .click();
      await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
      await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");

      await page.goto("/checkout");
      expect(await sidewaysScroll(page)).toBe(0);
      expect(await wordsBrokenMidWord(page)).toEqual([]);

      await page.goto("/payment");
      await fillDeliveryAddress(page);
      expect(await sidewaysScroll(page)).toBe(0);
      expect(await wordsBrokenMidWord(page)).toEqual([]);
      await enterCard(page, "4242424242424242");
      await page.getByRole("button", { name: "Buy Now" }).click();
      await expect(page).toHaveURL(/\/orders\?placed=/);
      expect(await sidewaysScroll(page)).toBe(0);
      expect(await wordsBrokenMidWord(page)).toEqual([]);

      await page
        .getByTestId("order")
        .getByRole("link", { name: /Order SF-|View order|Order details/ })
        .first()
        .click();
      await expect(page.getByRole("heading", { name: /^Order SF-/ })).toBeVisible();
      expect(await sidewaysScroll(page)).toBe(0);
      expect(await wordsBrokenMidWord(page)).toEqual([]);
      const title = page.getByTestId("order-item").filter({ hasText: BOOK }).getByText(BOOK);
      const box = await title.boundingBox();
      // Stacked, the title has the width of the screen; beside three columns it has most of 1000 px.
      expect(box?.width ?? 0).toBeGreaterThan(width < 600 ? 250 : 300);
      const quantity = page.getByTestId("order-item").filter({ hasText: BOOK }).getByRole("cell").nth(1);
      if (width < 600) await expect(quantity).toHaveText("1");
      if (width < 600)
        expect(await quantity.evaluate((cell) => getComputedStyle(cell, "::before").content)).toBe('"Quantity: "');
    });
  }
});

test('a search with two typos offers "Did you mean: stand mixer?" from the catalogue\'s words, and a few featured products', async ({
  page,
}) => {
  await gotoHydrated(page, "/");
  await page.getByRole("searchbox", { name: "Search Storefront" }).fill("stnad mixr");
  await page.getByRole("searchbox", { name: "Search Storefront" }).press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No results for “stnad mixr”");
  await expect(page.getByText("Did you mean: stand mixer?")).toBeVisible();
  const featured = page.getByRole("region", { name: "Featured products" }).getByRole("article");
  expect(await featured.count()).toBeGreaterThanOrEqual(2);
  await page.getByRole("link", { name: "stand mixer", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^\d+ results? for “stand mixer”$/);
});

test("the cheaper Samsung monitor has its own model number and title", async ({ page }) => {
  await page.goto("/search?q=samsung");
  const titles = await page.getByRole("article").getByRole("heading").allTextContents();
  const models = titles.map((title) => /LC49\w+/.exec(title)?.[0]);
  expect(models).toHaveLength(2);
  expect(new Set(models).size).toBe(2);
});

test("a quantity chosen while the basket page is still starting is kept and saved", async ({ page }) => {
  await gotoHydrated(page, "/");
  await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
  await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
  // The page's scripts are held back: the shopper chooses on the page as drawn by the server.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/.*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/checkout", { waitUntil: "domcontentloaded" });
  const quantity = page.getByRole("combobox", { name: `Quantity of ${BOOK}` });
  await quantity.selectOption("3");
  release();
  await expectHydrated(page);
  await expect(quantity).toHaveValue("3");
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");
  await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
  await page.unroute(/\/assets\/.*\.js$/);
  await page.reload();
  await expect(quantity).toHaveValue("3");
});

test("at 390 px the home banner's controls cover neither the picture nor each other, and read at 14 px or more", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await gotoHydrated(page, "/");
  const carousel = page.getByRole("region", { name: "Featured offers" });
  const picture = await carousel.locator(".carousel__slide--current img").boundingBox();
  const overlaps = (
    a: { x: number; y: number; width: number; height: number },
    b: { x: number; y: number; width: number; height: number },
  ) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const controls = [
    carousel.getByRole("button", { name: "Previous slide" }),
    carousel.getByRole("button", { name: "Next slide" }),
    carousel.getByRole("button", { name: /slide rotation/ }),
  ];
  const boxes = [];
  for (const control of controls) {
    const box = await control.boundingBox();
    expect(box).not.toBeNull();
    expect(overlaps(box!, picture!)).toBe(false);
    boxes.push(box!);
  }
  expect(overlaps(boxes[0]!, boxes[1]!) || overlaps(boxes[1]!, boxes[2]!) || overlaps(boxes[0]!, boxes[2]!)).toBe(
    false,
  );
  const fontSize = await controls[2]!.evaluate((button) => parseFloat(getComputedStyle(button).fontSize));
  expect(fontSize).toBeGreaterThanOrEqual(14);
  // The first products start below the controls, not over the picture.
  const firstCard = await page.getByRole("article").first().boundingBox();
  expect(firstCard!.y).toBeGreaterThanOrEqual(picture!.y + picture!.height);
});
