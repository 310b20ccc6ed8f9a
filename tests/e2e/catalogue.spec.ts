import { expect, test, type Page } from "@playwright/test";
import { gotoHydrated } from "./support/hydrated";

const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";
const MONITOR = "Samsung LC49HG90DMUXEN 49' Curved QLED Gaming Monitor - Double Full HD 3840 x 1080";
const IPAD = "New Apple iPad Pro (12.9-inch, Wi-Fi, 128GB) - Silver (4th Generation)";

const searchBox = (page: Page) => page.getByRole("banner").getByRole("searchbox", { name: "Search Storefront" });
const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
const card = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true });

async function searchFromHeader(page: Page, query: string) {
  await searchBox(page).fill(query);
  await searchBox(page).press("Enter");
  await expect(page).toHaveURL(`/search?${new URLSearchParams({ q: query }).toString()}`);
}

test.describe("with JavaScript", () => {
  test("a search typed in the header shows its results without reloading the page", async ({ page }) => {
    await gotoHydrated(page, "/");
    // Set on this document only: it survives a client-side navigation, not a reload.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await searchFromHeader(page, "monitor");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("3 results for “monitor”");
    await expect(page.getByRole("article")).toHaveCount(3);
    await expect(card(page, MONITOR).getByRole("button", { name: "Add to Basket" })).toBeVisible();
    await expect(searchBox(page)).toHaveValue("monitor");
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
  });

  test("a typo still finds the product, and a search that finds nothing leads back to the shop", async ({ page }) => {
    await gotoHydrated(page, "/");
    await searchFromHeader(page, "ipda");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("1 result for “ipda”");
    await expect(card(page, IPAD)).toBeVisible();
    await searchFromHeader(page, "moniter");
    await expect(card(page, MONITOR)).toBeVisible();
    await searchFromHeader(page, "<b>zzzz</b>");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("No results for “<b>zzzz</b>”");
    await page.getByRole("link", { name: "Back to the shop" }).click();
    await expect(page).toHaveURL("/");
  });

  test("a card leads to the product's page, which adds to the basket and carries valid JSON-LD", async ({ page }) => {
    await gotoHydrated(page, "/");
    await card(page, ECHO).getByRole("link", { name: ECHO }).click();
    await expect(page).toHaveURL("/products/amazon-echo-3rd-generation");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(ECHO);
    await expect(page.getByText("$98.99")).toBeVisible();
    await expect(page.getByRole("img", { name: "Rated 5 out of 5" })).toBeVisible();
    await expect(page.getByText(/Ask Alexa to play music/)).toBeVisible();

    await page.getByRole("button", { name: "Add to Basket" }).click();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
    await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");

    // The product's own JSON-LD comes first; the breadcrumbs' BreadcrumbList follows it.
    const jsonLd = await page.locator('script[type="application/ld+json"]').first().textContent();
    const product = JSON.parse(jsonLd ?? "") as {
      "@type": string;
      name: string;
      offers: { price: string; priceCurrency: string; availability: string }[];
    };
    // One Offer per variant: the Echo has one.
    expect(product).toMatchObject({
      "@type": "Product",
      name: ECHO,
      offers: [{ price: "98.99", priceCurrency: "USD", availability: "https://schema.org/InStock" }],
    });
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute(
      "href",
      /\/products\/amazon-echo-3rd-generation$/,
    );
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the header's search box is a plain form, and a product page adds to the basket with a form post", async ({
    page,
  }) => {
    await page.goto("/");
    await searchFromHeader(page, "smart speaker");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("1 result for “smart speaker”");
    await card(page, ECHO).getByRole("link", { name: ECHO }).click();
    await expect(page).toHaveURL("/products/amazon-echo-3rd-generation");
    await page.getByRole("button", { name: "Add to Basket" }).click();
    // Back on the product's page, at the product (the answer's #product-… fragment).
    await expect(page).toHaveURL(/\/products\/amazon-echo-3rd-generation#product-23445930$/);
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
  });
});
