import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";

const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
const buyNow = (page: Page) => page.getByRole("button", { name: /^(Buy Now|Processing)$/ });

async function fillBasket(page: Page) {
  await page.goto("/");
  await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
  await page.getByRole("article", { name: ECHO, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
  await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
}

async function openPayment(page: Page) {
  await page.goto("/checkout");
  await page.getByRole("link", { name: "Proceed to Checkout" }).click();
  await expect(page).toHaveURL("/payment");
  await expect(page.getByRole("heading", { name: "Checkout (2 items)" })).toBeVisible();
  await expect(page.getByTestId("order-total")).toHaveText("Order Total: $110.95");
  await fillDeliveryAddress(page);
}

/** After Buy Now: the orders page, announcing the order just placed. */
const ORDERS_AFTER_PAYING = /\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/;

test('a line of two is priced as one line, "2 × $11.96", on /payment and in the order', async ({ page }) => {
  await fillBasket(page);
  await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 3 items");
  await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
  await page.goto("/payment");
  await expect(page.getByRole("heading", { name: "Checkout (3 items)" })).toBeVisible();
  await expect(page.getByTestId("payment-line")).toHaveCount(2);
  await expect(page.getByTestId("payment-line").filter({ hasText: BOOK })).toContainText("2 × $11.96$23.92");
  await expect(page.getByTestId("order-total")).toHaveText("Order Total: $122.91");
  await fillDeliveryAddress(page);
  await enterCard(page, "4242424242424242");
  await buyNow(page).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  const order = page.getByTestId("order");
  await expect(order).toContainText("2 × $11.96");
  await expect(order).toContainText("1 × $98.99");
  await expect(order).toContainText("Order Total: $122.91");
});

test("a shopper pays with 4242… and lands on their orders with an empty basket", async ({ page }) => {
  await fillBasket(page);
  await openPayment(page);
  await expect(page.getByRole("heading", { name: "Delivery Address" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Review items and delivery" })).toBeVisible();
  await expect(page.getByRole("link", { name: "2 items", exact: true })).toHaveAttribute("href", "/checkout");
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeEnabled();
  await buyNow(page).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  await expect(page.getByRole("heading", { name: "Your Orders" })).toBeVisible();
  const order = page.getByTestId("order");
  await expect(order).toHaveCount(1);
  await expect(order).toContainText("Order Total: $110.95");
  await expect(order).toContainText(BOOK);
  await expect(order).toContainText(/Order SF-\d{4}-[A-Z0-9]{4}/);
  await expect(order).not.toContainText(/pi_/);
  await expect(order.getByRole("button")).toHaveCount(0);
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 0 items");
  // The payment page was replaced: Back does not return to it.
  await page.goBack();
  await expect(page).not.toHaveURL("/payment");
});

test("a shopper pays with Diners Club's 14 digits and a British postcode, and with UnionPay's 19", async ({ page }) => {
  await fillBasket(page);
  await openPayment(page);
  await enterCard(page, "36227206271667", { zip: "sw1a 1aa" });
  await expect(page.getByLabel("Card number")).toHaveValue("3622 720627 1667");
  await expect(page.getByLabel("ZIP or postal code")).toHaveValue("SW1A 1AA");
  await expect(buyNow(page)).toBeEnabled();
  await buyNow(page).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  await expect(page.getByTestId("order")).toHaveCount(1);

  // The same guest's next basket: the delivery address is kept, only the card is new.
  await fillBasket(page);
  await page.goto("/payment");
  await expect(page.getByTestId("delivery-address")).toContainText("Los Angeles, CA 90001");
  await enterCard(page, "6205500000000000004", { zip: "K1A 0B1" });
  await expect(page.getByLabel("Card number")).toHaveValue("6205 5000 0000 0000 004");
  await buyNow(page).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  await expect(page.getByTestId("order")).toHaveCount(2);
});

test("a declined card says so, keeps the basket and records no order", async ({ page }) => {
  await fillBasket(page);
  await openPayment(page);
  await enterCard(page, "4000 0000 0000 0002");
  await buyNow(page).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
  await expect(buyNow(page)).toHaveText("Buy Now");
  await expect(page).toHaveURL("/payment");
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");
  // A second try with a good card on the same page goes through.
  await enterCard(page, "4242 4242 4242 4242");
  await buyNow(page).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  await expect(page.getByTestId("order")).toHaveCount(1);
});

test("the authentication challenge can be completed, and failed", async ({ page }) => {
  await fillBasket(page);
  await openPayment(page);
  await enterCard(page, "4000 0027 6000 3184");
  await buyNow(page).click();
  const dialog = page.getByRole("dialog", { name: "Authenticate your payment" });
  await expect(dialog).toBeVisible();
  await expect(buyNow(page)).toHaveText("Processing");
  await dialog.getByRole("button", { name: "Fail" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "We are unable to authenticate your payment method." }),
  ).toBeVisible();
  await expect(buyNow(page)).toHaveText("Buy Now");
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 2 items");

  await buyNow(page).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Complete" }).click();
  await expect(page).toHaveURL(ORDERS_AFTER_PAYING);
  await expect(page.getByTestId("order")).toHaveCount(1);
});

test("Buy Now stays disabled while the card is empty or wrong, and field errors show under the form", async ({
  page,
}) => {
  await fillBasket(page);
  await openPayment(page);
  await expect(buyNow(page)).toBeDisabled();
  await page.getByLabel("Card number").fill("4242 4242 4242 4241");
  await expect(page.getByRole("alert").filter({ hasText: "Your card number is invalid." })).toBeVisible();
  await expect(buyNow(page)).toBeDisabled();
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration date").fill("01 / 20");
  await expect(
    page.getByRole("alert").filter({ hasText: "Your card's expiration year is in the past." }),
  ).toBeVisible();
  await expect(buyNow(page)).toBeDisabled();
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("CVC").fill("123");
  await page.getByLabel("ZIP or postal code").fill("90001");
  await expect(buyNow(page)).toBeEnabled();
});

test("a failed total request says so and offers to try again; the basket stays", async ({ page }) => {
  await fillBasket(page);
  await page.route("**/payments/create**", (route) => route.abort("internetdisconnected"));
  await page.goto("/payment");
  await fillDeliveryAddress(page);
  await expect(page.getByRole("alert")).toContainText("We couldn't reach the shop to prepare your payment.");
  await expect(buyNow(page)).toBeDisabled();
  await page.unroute("**/payments/create**");
  await page.getByRole("button", { name: "Try again" }).click();
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeEnabled();
});

test("the orders page invites a guest with no orders to sign in", async ({ page }) => {
  await page.goto("/orders");
  await expect(page.getByRole("heading", { name: "Your Orders" })).toBeVisible();
  await expect(page.getByText("You have no orders yet.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in or create an account" })).toHaveAttribute(
    "href",
    "/login?returnTo=%2Forders",
  );
});
