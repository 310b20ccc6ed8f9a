import { expect, type Page } from "@playwright/test";

/** The operator the console stories sign in as: the shop under test is started with it (playwright.config.ts). */
export const OPERATOR = { email: "operator@storefront.test", password: "violet tractor harbour pickle" };

/** Signs in as the operator from the sign-in page, as a person would, and waits for the home page. */
export async function signInAsOperator(page: Page): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL("/");
}
