import type { Page } from "@playwright/test";
import { expectHydrated } from "./hydrated";

/**
 * Types a test card into the payment page's card field. The field is the script's: typed into before the page is
 * hydrated, the number would be lost and Buy Now stay disabled, so this waits for hydration first.
 */
export async function enterCard(
  page: Page,
  number: string,
  { expiry = "12 / 34", cvc = "123", zip = "90001" } = {},
): Promise<void> {
  await expectHydrated(page);
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiration date").fill(expiry);
  await page.getByLabel("CVC").fill(cvc);
  await page.getByRole("textbox", { name: "ZIP or postal code" }).fill(zip);
}
