import { expect, test, type Page } from "@playwright/test";
import { BOOK, guestBuysTheBook } from "./support/guest-buys";
import { signInAsOperator } from "./support/operator";

/**
 * The console refunds an order line by line: a shopper buys two of the book, the operator refunds one with "Put the
 * items back in stock", is asked "Refund $11.96 to Visa ending in 4242?", and the order reads Partially refunded and
 * still Unfulfilled (to ship, under Paid), with one unit back in stock, once.
 */

const BOOK_ID = "12321341";

/** The book's stock as the console's product form shows it. */
async function bookStock(page: Page): Promise<string> {
  await page.goto(`/admin/products/${BOOK_ID}`);
  return page.getByLabel("Stock", { exact: true }).inputValue();
}

test("the operator refunds one of two units with its item back in stock; the order is still to ship", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const page = await browser.newPage();
  await signInAsOperator(page);
  // The book's stock is tracked: 10 on hand.
  await page.goto(`/admin/products/${BOOK_ID}`);
  await page.getByLabel("Stock", { exact: true }).fill("10");
  await page.getByLabel("Track stock").check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  const shopper = await browser.newPage();
  const number = await guestBuysTheBook(shopper, `refund.lines.${Date.now()}@example.com`, 2);
  expect(await bookStock(page)).toBe("8");

  await page.goto(`/admin/orders/${number}`);
  await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
  await page.getByLabel(`Quantity to refund of ${BOOK}`).fill("1");
  await page.getByRole("checkbox", { name: `Put the items back in stock, ${BOOK}` }).check();
  await page.getByRole("button", { name: "Refund", exact: true }).click();

  // Asked first, with the refund function's figure and what goes back.
  await expect(page.getByRole("heading", { name: "Refund $11.96 to Visa ending in 4242?" })).toBeVisible();
  await expect(page.getByText(`1 × ${BOOK}, 1 put back in stock`)).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/refund-lines-confirm-390.png", fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  // Never up: more than the line comes to is refused.
  await page.getByLabel("Refund less").fill("11.97");
  await page.getByRole("button", { name: "Change the amount" }).click();
  await expect(page.getByText("You can refund at most $11.96.").first()).toBeVisible();
  // Back at the order page: the line again, then confirmed.
  await page.getByLabel(`Quantity to refund of ${BOOK}`).fill("1");
  await page.getByRole("checkbox", { name: `Put the items back in stock, ${BOOK}` }).check();
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await page.getByRole("button", { name: "Refund $11.96" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Refunded $11.96." })).toBeVisible();
  const facts = (term: string) => page.getByText(term, { exact: true }).locator("xpath=following-sibling::dd[1]");
  await expect(facts("Payment")).toHaveText("Partially refunded");
  await expect(facts("Fulfilment")).toHaveText("Unfulfilled");
  await expect(page.getByText("1 of 2 refunded, 1 back in stock")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Mark as shipped" })).toBeVisible();
  await page.screenshot({ path: "test-results/refund-lines-order-1280.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/refund-lines-order-390.png", fullPage: true });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 900 });

  // One unit back, once.
  expect(await bookStock(page)).toBe("9");

  // Still to ship: under Paid, with both statuses in the list.
  await page.goto(`/admin/orders?status=paid&q=${number}`);
  const row = page.getByRole("row").filter({ hasText: number });
  await expect(row).toContainText("Partially refunded");
  await expect(row).toContainText("Unfulfilled");
});
