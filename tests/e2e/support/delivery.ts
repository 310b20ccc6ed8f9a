import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { expect, type Page } from "@playwright/test";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Fills the delivery address on /payment by its labels, as a shopper (or the browser's autofill) does, and saves it. */
export async function fillDeliveryAddress(
  page: Page,
  {
    name = "Ada Lovelace",
    email = "ada@example.com",
    basketReminders = false,
  }: { name?: string; email?: string | null; basketReminders?: boolean } = {},
) {
  await page.getByLabel("Full name").fill(name);
  await page.getByLabel("Address line 1").fill("1 Main Street");
  await page.getByLabel("Address line 2 (optional)").fill("Apartment 4");
  await page.getByLabel("City").fill("Los Angeles");
  await page.getByLabel("Country").selectOption("US");
  await page.getByLabel("State").selectOption("CA");
  await page.getByLabel("ZIP code").fill("90001");
  if (email !== null) await page.getByLabel("E-mail for your receipt").fill(email);
  if (basketReminders) await page.getByLabel("E-mail me about my basket and offers").check();
  await page.getByRole("button", { name: "Deliver to this address" }).click();
  await expect(page.getByTestId("delivery-address")).toContainText("Los Angeles, CA 90001");
}

/** axe-core's violations on the page as it is now (WCAG 2.1 AA rules), as "rule: target" lines. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated rather than added as a script tag: the shop's Content-Security-Policy rightly refuses inline scripts.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")}`),
    );
  });
}
