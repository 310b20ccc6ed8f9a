import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { BOOK } from "./support/guest-buys";
import { signInAsOperator } from "./support/operator";

/**
 * Store credit from a refund, spent on the next order: a shopper with an account buys the book by card; the operator
 * refunds it with "Refund to store credit"; the account shows "Store credit: $11.96"; the next order of two books
 * uses it ("Use store credit ($11.96)", "Store credit: -$11.96") and the card pays the rest. Then the operator adds
 * credit by hand, with a note, and it pays a whole order without a card ("Place your order").
 */

const PASSWORD = "correct horse battery";

async function addTheBook(page: Page, count: number) {
  await page.goto("/");
  const add = page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" });
  const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
  for (let added = 1; added <= count; added++) {
    await add.click();
    await expect(basket).toHaveAccessibleName(`Basket, ${added} ${added === 1 ? "item" : "items"}`);
    await expect(basket).toHaveAttribute("aria-busy", "false");
  }
  await page.goto("/checkout");
  await page.getByRole("link", { name: "Proceed to Checkout" }).click();
  await expect(page).toHaveURL("/payment");
}

const totalsLine = (page: Page, term: string) =>
  page.getByTestId("order-totals").getByText(term, { exact: true }).locator("xpath=following-sibling::dd[1]");

test("a refund to store credit is spent on the next order, and credit added by hand pays a whole order", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const email = `credit.${Date.now()}.${process.pid}@example.com`;
  const shopper = await browser.newPage();
  await shopper.goto("/login");
  await shopper.getByLabel("E-mail", { exact: true }).fill(email);
  await shopper.getByLabel("Password").fill(PASSWORD);
  await shopper.getByRole("button", { name: "Create your account" }).click();
  await expect(shopper).toHaveURL("/");

  // The first order, by card.
  await addTheBook(shopper, 1);
  await fillDeliveryAddress(shopper, { email: null });
  await enterCard(shopper, "4242424242424242");
  await shopper.getByRole("button", { name: "Buy Now" }).click();
  await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  const number = new URL(shopper.url()).searchParams.get("placed") ?? "";

  // The operator refunds it to store credit, asked first.
  const operator = await browser.newPage();
  await signInAsOperator(operator);
  await operator.goto(`/admin/orders/${number}`);
  await operator.getByLabel(`Quantity to refund of ${BOOK}`).fill("1");
  await operator.getByRole("button", { name: "Refund to store credit" }).click();
  await expect(operator.getByRole("heading", { name: "Refund $11.96 to store credit?" })).toBeVisible();
  await operator.getByRole("button", { name: "Refund $11.96" }).click();
  await expect(operator.getByRole("status").filter({ hasText: "Refunded $11.96." })).toBeVisible();

  await shopper.goto("/account");
  await expect(shopper.getByText("Store credit: $11.96")).toBeVisible();

  // The next order: two books, the credit pays $11.96 of $23.92 and the card the rest.
  await addTheBook(shopper, 2);
  await shopper.getByRole("button", { name: "Use store credit ($11.96)" }).click();
  await expect(totalsLine(shopper, "Store credit:")).toContainText("-$11.96");
  await expect(totalsLine(shopper, "To pay by card:")).toHaveText("$11.96");
  await shopper.screenshot({ path: "test-results/store-credit-payment-1280.png", fullPage: true });
  await enterCard(shopper, "4242424242424242");
  await shopper.getByRole("button", { name: "Buy Now" }).click();
  await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  await shopper.goto("/account");
  await expect(shopper.getByText(/Store credit: \$/)).toHaveCount(0);

  // The console: the customer's credit, spent; then $50.00 added by hand with a note.
  await operator.goto(`/admin/store-credit?email=${encodeURIComponent(email)}`);
  await expect(operator.getByText("Store credit: $0.00")).toBeVisible();
  await expect(operator.getByRole("cell", { name: "Spent", exact: true })).toBeVisible();
  await operator.getByRole("form", { name: "Add credit" }).getByLabel("Amount").fill("50.00");
  await operator.getByRole("form", { name: "Add credit" }).getByLabel("Note").fill("Sorry for the late delivery");
  await operator.getByRole("button", { name: "Add credit" }).click();
  await expect(operator.getByRole("status").filter({ hasText: "Added $50.00 of store credit." })).toBeVisible();
  await expect(operator.getByText("Store credit: $50.00")).toBeVisible();
  for (const width of [1280, 390]) {
    await operator.setViewportSize({ width, height: 900 });
    await operator.screenshot({ path: `test-results/store-credit-console-${width}.png`, fullPage: true });
    expect(
      await operator.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    ).toBeLessThanOrEqual(0);
  }

  // A whole order paid by credit: no card, "Place your order".
  await addTheBook(shopper, 1);
  await shopper.getByRole("button", { name: "Use store credit ($50.00)" }).click();
  await expect(totalsLine(shopper, "Store credit:")).toContainText("-$11.96");
  await shopper.setViewportSize({ width: 390, height: 844 });
  await shopper.screenshot({ path: "test-results/store-credit-payment-390.png", fullPage: true });
  await shopper.getByRole("button", { name: "Place your order" }).click();
  await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  await shopper.goto("/account");
  await expect(shopper.getByText("Store credit: $38.04")).toBeVisible();
});
