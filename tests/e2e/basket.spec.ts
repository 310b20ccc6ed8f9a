import { expect, test, type Page } from "@playwright/test";
import { gotoHydrated } from "./support/hydrated";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";

const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
/** Until the server has answered every basket change, the header's basket link is aria-busy. */
const basketSaved = (page: Page) => expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
const addButton = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true }).getByRole("button", { name: "Add to Basket" });

async function addBookTwiceAndEchoOnce(page: Page) {
  await gotoHydrated(page, "/");
  await addButton(page, BOOK).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
  await addButton(page, BOOK).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
  await addButton(page, ECHO).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");
  await basketSaved(page);
}

test.describe("with JavaScript", () => {
  test("a shopper adds twice and once more; the basket survives a reload and shows on the checkout page", async ({ page }) => {
    await addBookTwiceAndEchoOnce(page);
    await expect(page.getByRole("status")).toHaveText("Added to basket");
    await page.reload();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");

    await basketLink(page).click();
    await expect(page).toHaveURL("/checkout");
    await expect(page.getByRole("heading", { name: "Your shopping Basket" })).toBeVisible();
    await expect(page.getByText("Hello, Guest")).toBeVisible();
    await expect(page.getByTestId("basket-item")).toHaveCount(3);
    // 2 x $11.96 + $98.99, in cents on the server.
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (3 items): $122.91");

    await page.getByTestId("basket-item").filter({ hasText: ECHO }).getByRole("button", { name: "Remove from Basket" }).click();
    await expect(page.getByTestId("basket-item")).toHaveCount(2);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (2 items): $23.92");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
    await basketSaved(page);
    await page.reload();
    await expect(page.getByTestId("basket-item")).toHaveCount(2);
  });

  test("removing one of two identical items leaves the other", async ({ page }) => {
    await gotoHydrated(page, "/");
    await addButton(page, BOOK).click();
    await addButton(page, BOOK).click();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
    await basketSaved(page);
    await gotoHydrated(page, "/checkout");
    await page.getByRole("button", { name: "Remove from Basket" }).first().click();
    await expect(page.getByTestId("basket-item")).toHaveCount(1);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (1 item): $11.96");
  });

  test("a new shopper's quick first two adds both land in one basket", async ({ page }) => {
    // The first add starts the guest session. Hold it back until the second add is on its way too (or a second
    // has passed): if both went out before the first answer set the cookie, each would start a session of its own.
    let secondSent = () => {};
    const second = new Promise<void>((resolve) => (secondSent = resolve));
    let adds = 0;
    await page.route("**/basket/add", async (route) => {
      if (++adds === 1) await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 1000))]);
      else secondSent();
      await route.continue();
    });
    await gotoHydrated(page, "/");
    await addButton(page, BOOK).click();
    await addButton(page, ECHO).click();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
    await basketSaved(page);
    await page.reload();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
  });

  test("an empty basket says so and links home", async ({ page }) => {
    await gotoHydrated(page, "/checkout");
    await expect(page.getByText("Your basket is empty.")).toBeVisible();
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (0 items): $0.00");
    await page.getByRole("link", { name: "Continue shopping" }).click();
    await expect(page).toHaveURL("/");
  });

  test("a failed request rolls the count back and says so", async ({ page }) => {
    await gotoHydrated(page, "/");
    await page.route("**/basket/add", (route) => route.abort("internetdisconnected"));
    await addButton(page, BOOK).click();
    await expect(page.getByRole("alert")).toContainText("We couldn't reach the shop");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 0 items");
  });

  test("a second tab shows the current basket when it regains focus", async ({ context }) => {
    const first = await context.newPage();
    const second = await context.newPage();
    await gotoHydrated(first, "/");
    await gotoHydrated(second, "/checkout");
    await expect(second.getByText("Your basket is empty.")).toBeVisible();
    await addButton(first, ECHO).click();
    // Announced once the server has answered (the count alone may still be the optimistic one).
    await expect(first.getByRole("status")).toHaveText("Added to basket");
    await second.bringToFront();
    await second.evaluate(() => window.dispatchEvent(new Event("focus")));
    await expect(second.getByTestId("basket-item")).toHaveCount(1);
    await expect(basketLink(second)).toHaveAccessibleName("Basket, 1 item");
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the same flow works with plain form posts", async ({ page }) => {
    await page.goto("/");
    await addButton(page, BOOK).click();
    await expect(page).toHaveURL("/");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
    await addButton(page, BOOK).click();
    await addButton(page, ECHO).click();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");
    await page.reload();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");

    await page.goto("/checkout");
    await expect(page.getByTestId("basket-item")).toHaveCount(3);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (3 items): $122.91");
    await page.getByTestId("basket-item").filter({ hasText: ECHO }).getByRole("button", { name: "Remove from Basket" }).click();
    await expect(page).toHaveURL("/checkout");
    await expect(page.getByTestId("basket-item")).toHaveCount(2);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (2 items): $23.92");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
  });
});
