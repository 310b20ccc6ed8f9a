import { expect, test, type Page } from "@playwright/test";
import { gotoHydrated } from "./support/hydrated";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";

const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
/** Until the server has answered every basket change, the header's basket link is aria-busy. */
const basketSaved = (page: Page) => expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
const card = (page: Page, title: string) => page.getByRole("article", { name: title, exact: true });
const addButton = (page: Page, title: string) => card(page, title).getByRole("button", { name: "Add to Basket" });
const line = (page: Page, title: string) => page.getByTestId("basket-item").filter({ hasText: title });
const quantityOf = (page: Page, title: string) => page.getByRole("combobox", { name: `Quantity of ${title}` });

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
  test("a shopper adds twice and once more; the basket survives a reload and shows on the checkout page", async ({
    page,
  }) => {
    await addBookTwiceAndEchoOnce(page);
    await expect(page.getByRole("status")).toHaveText("Added to basket");
    await page.reload();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");

    await basketLink(page).click();
    await expect(page).toHaveURL("/checkout");
    await expect(page.getByRole("heading", { name: "Your shopping Basket" })).toBeVisible();
    await expect(page.getByText("Hello, Guest")).toBeVisible();
    // One line per product: the book's line holds 2.
    await expect(page.getByTestId("basket-item")).toHaveCount(2);
    await expect(quantityOf(page, BOOK)).toHaveValue("2");
    await expect(quantityOf(page, ECHO)).toHaveValue("1");
    // 2 x $11.96 + $98.99, in cents on the server.
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (3 items): $122.91");

    await line(page, ECHO).getByRole("button", { name: "Remove from Basket" }).click();
    await expect(page.getByTestId("basket-item")).toHaveCount(1);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (2 items): $23.92");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
    await basketSaved(page);
    await page.reload();
    await expect(page.getByTestId("basket-item")).toHaveCount(1);
  });

  test("quantities change at once, survive racing changes, and the Update button is not needed", async ({ page }) => {
    await addBookTwiceAndEchoOnce(page);
    // Every answer is held back until the last change is made: the page shows each one meanwhile, and the server
    // takes them in the order they were made.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/basket/{quantity,remove}", async (route) => {
      await held;
      await route.continue();
    });
    await gotoHydrated(page, "/checkout");
    await expect(line(page, BOOK).getByRole("button", { name: "Update" })).toBeHidden();
    await quantityOf(page, BOOK).selectOption("7");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 8 items");
    await quantityOf(page, BOOK).selectOption("4");
    await line(page, ECHO).getByRole("button", { name: "Remove from Basket" }).click();
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (4 items): $47.84");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 4 items");
    release();
    await basketSaved(page);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (4 items): $47.84");
    await page.reload();
    await expect(quantityOf(page, BOOK)).toHaveValue("4");
    await expect(page.getByTestId("basket-item")).toHaveCount(1);
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 4 items");
  });

  test("an 11th of one product is refused next to its button, and the count stays at 10", async ({ page }) => {
    await gotoHydrated(page, "/");
    for (let i = 0; i < 11; i++) await addButton(page, BOOK).click();
    await expect(card(page, BOOK).getByRole("alert")).toHaveText(
      "You can have at most 10 of one product in your basket.",
    );
    await expect(addButton(page, BOOK)).toHaveAccessibleDescription(
      "You can have at most 10 of one product in your basket.",
    );
    await basketSaved(page);
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 10 items");
    // Not at the top of the page, out of sight of a shopper down at the card.
    await expect(page.getByRole("alert").filter({ hasText: /at most 10/ })).toHaveCount(1);
    await expect(card(page, ECHO).getByText(/at most 10/)).toHaveCount(0);
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

  test("an empty basket says so, offers no checkout, and links to the shop; /payment sends it there", async ({
    page,
  }) => {
    await gotoHydrated(page, "/checkout");
    await expect(page.getByRole("heading", { name: "Your Storefront Basket is empty" })).toBeVisible();
    await expect(page.getByTestId("subtotal")).toHaveCount(0);
    await expect(page.getByRole("link", { name: /Proceed to Checkout/ })).toHaveCount(0);
    await expect(page.getByText("gift", { exact: false })).toHaveCount(0);
    await page.goto("/payment");
    await expect(page).toHaveURL("/checkout");
    await expect(page.getByText("Order Total")).toHaveCount(0);
    await page.getByRole("link", { name: "Shop today's deals" }).click();
    await expect(page).toHaveURL("/");
  });

  test("a quantity chosen while the basket page starts up is kept, not drawn over as its scripts take the page", async ({
    browser,
  }) => {
    // The page takes over the select at a moment the story cannot name (while React hydrates it, a choice's own
    // event makes React draw the server's quantity back at once), so three shoppers choose as soon as it is shown.
    // Three shoppers' whole visits ran past the 30 s default while CI's other worker was busy.
    test.slow();
    for (let shopper = 1; shopper <= 3; shopper += 1) {
      const page = await browser.newPage();
      await gotoHydrated(page, "/");
      await addButton(page, BOOK).click();
      await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
      await basketSaved(page);
      await page.goto("/checkout");
      await quantityOf(page, BOOK).selectOption("2");
      await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
      await basketSaved(page);
      await page.reload();
      await expect(quantityOf(page, BOOK)).toHaveValue("2");
      await page.close();
    }
  });

  test("a failed request rolls the count back and says so", async ({ page }) => {
    await gotoHydrated(page, "/");
    await page.route("**/basket/add", (route) => route.abort("internetdisconnected"));
    await addButton(page, BOOK).click();
    await expect(card(page, BOOK).getByRole("alert")).toContainText("We couldn't reach the shop");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 0 items");
  });

  test("a second tab shows the current basket when it regains focus", async ({ context }) => {
    const first = await context.newPage();
    const second = await context.newPage();
    await gotoHydrated(first, "/");
    await gotoHydrated(second, "/checkout");
    await expect(second.getByRole("heading", { name: "Your Storefront Basket is empty" })).toBeVisible();
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
    // Back at the card that was added, not at the top of the page.
    await expect(page).toHaveURL("/#product-12321341");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
    await addButton(page, BOOK).click();
    await addButton(page, ECHO).click();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");
    await page.reload();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");

    await page.goto("/checkout");
    await expect(page.getByTestId("basket-item")).toHaveCount(2);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (3 items): $122.91");
    await quantityOf(page, BOOK).selectOption("5");
    await line(page, BOOK).getByRole("button", { name: "Update" }).click();
    await expect(page).toHaveURL(/\/checkout#product-12321341$/);
    await expect(quantityOf(page, BOOK)).toHaveValue("5");
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (6 items): $158.79");
    await line(page, ECHO).getByRole("button", { name: "Remove from Basket" }).click();
    await expect(page.getByTestId("basket-item")).toHaveCount(1);
    await expect(page.getByTestId("subtotal")).toHaveText("Subtotal (5 items): $59.80");
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 5 items");
  });

  test("a refused add comes back to its product, with the reason next to its button", async ({ page }) => {
    await page.goto("/");
    await addButton(page, ECHO).click();
    // The page comes back at the card that was added, not at the top.
    await expect(page).toHaveURL(/\/#product-23445930$/);
    await page.goto("/checkout");
    await quantityOf(page, ECHO).selectOption("10");
    await line(page, ECHO).getByRole("button", { name: "Update" }).click();
    await page.goto("/");
    await addButton(page, ECHO).click();
    await expect(page).toHaveURL(/basket-error=BASKET_LINE_FULL#product-23445930$/);
    await expect(card(page, ECHO).getByRole("alert")).toHaveText(
      "You can have at most 10 of one product in your basket.",
    );
    await expect(card(page, ECHO)).toBeInViewport();
    await expect(basketLink(page)).toHaveAccessibleName("Basket, 10 items");
  });
});
