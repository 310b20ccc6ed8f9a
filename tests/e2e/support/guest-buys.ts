import { expect, type Page } from "@playwright/test";
import { enterCard } from "./card";
import { fillDeliveryAddress } from "./delivery";

export const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";

/** A guest adds the book `quantity` times from the home page, pays with 4242… and lands on their orders; the order's number. */
export async function guestBuysTheBook(page: Page, email: string, quantity = 1): Promise<string> {
  await page.goto("/");
  const add = page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" });
  const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
  for (let count = 1; count <= quantity; count++) {
    await add.click();
    await expect(basket).toHaveAccessibleName(`Basket, ${count} ${count === 1 ? "item" : "items"}`);
    await expect(basket).toHaveAttribute("aria-busy", "false");
  }
  await page.goto("/checkout");
  await page.getByRole("link", { name: "Proceed to Checkout" }).click();
  await expect(page).toHaveURL("/payment");
  await fillDeliveryAddress(page, { email });
  await enterCard(page, "4242424242424242");
  await page.getByRole("button", { name: "Buy Now" }).click();
  await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  return new URL(page.url()).searchParams.get("placed") ?? "";
}
