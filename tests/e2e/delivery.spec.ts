import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { accessibilityViolations, fillDeliveryAddress } from "./support/delivery";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";

const buyNow = (page: Page) => page.getByRole("button", { name: /^(Buy Now|Processing)$/ });
const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });

async function addBook(page: Page) {
  await page.goto("/");
  await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  await expect(basketLink(page)).toHaveAccessibleName("Basket, 1 item");
  await expect(basketLink(page)).toHaveAttribute("aria-busy", "false");
}

/** Pays for the basket with a delivery address; returns the new order's number, read from the confirmation. */
async function payWithAddress(page: Page): Promise<string> {
  await page.goto("/payment");
  await fillDeliveryAddress(page);
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeEnabled();
  await buyNow(page).click();
  await expect(page).toHaveURL(/\/orders\?placed=SF-/);
  const status = page.getByRole("status").filter({ hasText: "Thank you: your order" });
  await expect(status).toHaveText(/^Thank you: your order SF-\d{4}-[A-Z0-9]{4} is placed\.$/);
  return /SF-\d{4}-[A-Z0-9]{4}/.exec((await status.textContent()) ?? "")?.[0] ?? "";
}

test("a shopper pays with an address filled by label and finds it on the order's own page", async ({ page }) => {
  await addBook(page);
  const number = await payWithAddress(page);
  // The new order is listed first, with its status, and links to its page.
  const first = page.getByTestId("order").first();
  await expect(first).toContainText(`Order ${number}`);
  await expect(first.getByTestId("order-status")).toHaveText("Paid");
  await first.getByRole("link", { name: `Order ${number}` }).click();
  await expect(page).toHaveURL(`/orders/${number}`);
  await expect(page.getByRole("heading", { name: `Order ${number}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("order-address")).toHaveText(
    ["Ada Lovelace", "1 Main Street", "Apartment 4", "Los Angeles, CA 90001", "United States"].join(""),
  );
  await expect(page.getByTestId("order-card")).toHaveText("Paid with Visa ending in 4242");
  await expect(page.getByTestId("order-status")).toHaveText("Paid");
  await expect(page.getByTestId("order-item")).toContainText(BOOK);
  await expect(page.getByTestId("order-total")).toHaveText("$11.96");
  expect(await accessibilityViolations(page)).toEqual([]);
});

test("Buy Now is refused without an address: disabled, said why, and the form's errors take focus", async ({
  page,
}) => {
  // Forty steps, two reloads and two accessibility checks: on a busy 2-core machine it ran past the 30 s default.
  test.slow();
  await addBook(page);
  await page.goto("/payment");
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeDisabled();
  await expect(page.getByText("Add a delivery address above to pay.")).toBeVisible();
  await page.getByRole("button", { name: "Deliver to this address" }).click();
  const summary = page.getByRole("alert").filter({ hasText: "Please check the delivery address" });
  await expect(summary).toBeFocused();
  await expect(summary).toContainText("Full name: Enter the full name of the person receiving the order.");
  await expect(summary).toContainText("E-mail for your receipt: Enter the e-mail address for your receipt.");
  // Each error is also under its field, and the field says so.
  await expect(page.getByLabel("ZIP code")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("ZIP code")).toHaveAccessibleDescription("Enter the ZIP code.");
  await expect(buyNow(page)).toBeDisabled();

  // Outside the US the labels follow the country, and its own postal rule applies.
  await page.getByLabel("Country").selectOption("GB");
  await expect(page.getByLabel("Region")).toBeVisible();
  await page.getByLabel("Postal code", { exact: true }).fill("12345");
  await page.getByRole("button", { name: "Deliver to this address" }).click();
  await expect(page.getByLabel("Postal code", { exact: true })).toHaveAccessibleDescription(
    "Enter a UK postcode, like SW1A 1AA.",
  );

  await page.reload();
  await fillDeliveryAddress(page);
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeEnabled();
  // With a basket and an address, the page passes axe.
  expect(await accessibilityViolations(page)).toEqual([]);
  // A reload keeps the address: it is kept with the basket on the server.
  await page.reload();
  await expect(page.getByTestId("delivery-address")).toContainText("Ada Lovelace");
});

test("another shopper opening the order's page gets the 404 page", async ({ page, browser }) => {
  await addBook(page);
  const number = await payWithAddress(page);
  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  const response = await strangerPage.goto(`/orders/${number}`);
  expect(response?.status()).toBe(404);
  await expect(strangerPage.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(strangerPage.getByText(number)).toHaveCount(0);
  await stranger.close();
});

test("the order prints as one clean page: no header, no buttons", async ({ page }) => {
  await addBook(page);
  const number = await payWithAddress(page);
  await page.goto(`/orders/${number}`);
  await expect(page.getByRole("button", { name: "Print receipt" })).toBeVisible();
  await page.emulateMedia({ media: "print" });
  await expect(page.getByRole("banner")).toBeHidden();
  await expect(page.getByRole("button", { name: "Print receipt" })).toBeHidden();
  await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
  const pdf = await page.pdf({ format: "Letter" });
  expect(pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g)).toHaveLength(1);
});

test("long names and e-mail addresses wrap at 375 px, with no sideways scroll", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await addBook(page);
  await page.goto("/payment");
  await fillDeliveryAddress(page, {
    name: "Maximiliana Wilhelmina Theodora Fitzgerald-Montgomery-Smythe",
    email: "a.very.long.mailbox.name.for.receipts.only@subdomain.example.com",
  });
  await expect(page.getByTestId("delivery-address")).toContainText(
    "Receipt to a.very.long.mailbox.name.for.receipts.only@subdomain.example.com",
  );
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.goto("/checkout");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the address form posts, shows its errors in place, and keeps the address", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
    await page.goto("/payment");
    await page.getByLabel("Full name").fill("Ada Lovelace");
    await page.getByLabel("Address line 1").fill("1 Main Street");
    await page.getByLabel("City").fill("Los Angeles");
    await page.getByLabel("State").selectOption("CA");
    await page.getByLabel("ZIP code").fill("9000");
    await page.getByLabel("E-mail for your receipt").fill("ada@example.com");
    await page.getByRole("button", { name: "Deliver to this address" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Please check the delivery address" })).toContainText(
      "ZIP code: Enter a ZIP code of 5 or 9 digits",
    );
    await expect(page.getByLabel("Full name")).toHaveValue("Ada Lovelace");
    await page.getByLabel("ZIP code").fill("90001");
    await page.getByRole("button", { name: "Deliver to this address" }).click();
    await expect(page.getByTestId("delivery-address")).toContainText("Los Angeles, CA 90001");
  });
});

test("paying in a second tab after the first has paid says the order is already paid, with a link to it", async ({
  page,
  context,
}) => {
  await addBook(page);
  await page.goto("/payment");
  await fillDeliveryAddress(page);
  const second = await context.newPage();
  await second.goto("/payment");
  await expect(second.getByTestId("delivery-address")).toContainText("Ada Lovelace");
  await enterCard(second, "4242 4242 4242 4242");
  await expect(buyNow(second)).toBeEnabled();

  await page.bringToFront();
  await enterCard(page, "4242 4242 4242 4242");
  await expect(buyNow(page)).toBeEnabled();
  await buyNow(page).click();
  await expect(page).toHaveURL(/\/orders\?placed=SF-/);
  const number = /SF-\d{4}-[A-Z0-9]{4}/.exec(page.url())?.[0] ?? "";

  await buyNow(second).click();
  const alert = second.getByRole("alert").filter({ hasText: "This order is already paid" });
  await expect(alert).toHaveText(`This order is already paid: it is order ${number}.See order ${number}`);
  await expect(alert).not.toContainText("PaymentIntent");
  await alert.getByRole("link", { name: `See order ${number}` }).click();
  await expect(second).toHaveURL(`/orders/${number}`);
});
