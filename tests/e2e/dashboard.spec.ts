import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { enterCard } from "./support/card";
import { accessibilityViolations, fillDeliveryAddress } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";
import { expectHydrated } from "./support/hydrated";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";

// A shop of its own: the dashboard counts every order of the shop, and other stories buy things at the same time.
let shop: ShopProcess;
let dataDir = "";
test.beforeAll(async () => {
  test.setTimeout(120_000);
  dataDir = mkdtempSync(join(tmpdir(), "storefront-dashboard-"));
  shop = await startShopProcess(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SHOP_TIME_ZONE: "America/New_York",
      OPERATOR_EMAIL: OPERATOR.email,
      OPERATOR_PASSWORD: OPERATOR.password,
      AUTH_ATTEMPTS_PER_IP: "10000",
      NEW_SESSIONS_PER_IP: "100000",
      PAYMENT_ATTEMPTS_PER_IP: "100000",
    },
    await freePort(),
    100_000,
  );
});
test.afterAll(async () => {
  if (shop) await killShop(shop, "SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string) => `${shop.origin}${path}`;

/** A guest buys the book with 4242… and lands on their orders; the order's number. */
async function guestBuysTheBook(page: Page, email: string): Promise<string> {
  await page.goto(url("/"));
  await expectHydrated(page);
  await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
  const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
  await expect(basket).toHaveAccessibleName("Basket, 1 item");
  await expect(basket).toHaveAttribute("aria-busy", "false");
  await page.goto(url("/checkout"));
  await page.getByRole("link", { name: "Proceed to Checkout" }).click();
  await expect(page).toHaveURL(/\/payment$/);
  await fillDeliveryAddress(page, { email });
  await enterCard(page, "4242424242424242");
  await page.getByRole("button", { name: "Buy Now" }).click();
  await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
  return new URL(page.url()).searchParams.get("placed") ?? "";
}

/** The figure under its label in the dashboard's list of figures. */
const figure = (page: Page, label: string) =>
  page
    .locator(".console-figures div")
    .filter({ has: page.getByRole("term").getByText(label, { exact: true }) })
    .getByRole("definition");

test("the dashboard after two purchases and a refund shows what was sold, refunded and is left to do", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const shopper = await browser.newPage();
  const first = await guestBuysTheBook(shopper, `dashboard.first.${Date.now()}@example.com`);
  const second = await guestBuysTheBook(await browser.newPage(), `dashboard.second.${Date.now()}@example.com`);
  expect(first).not.toBe(second);

  const page = await browser.newPage();
  await page.goto(url("/login"));
  await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(url("/"));

  // $5.00 of the first order back to the shopper, from the order's page.
  await page.goto(url(`/admin/orders/${first}`));
  await page.getByLabel("Amount").fill("5.00");
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await page.getByRole("button", { name: "Refund $5.00" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Refunded $5.00." })).toBeVisible();

  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Dashboard" }).click();
  await expect(page).toHaveURL(url("/admin"));
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await expect(page.getByText("Days in America/New_York. Test orders: the shop takes test payments.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Today", exact: true })).toHaveAttribute("aria-current", "page");
  const expected: [string, string][] = [
    ["Gross sales", "$23.92"],
    ["Discounts", "$0.00"],
    ["Refunds", "-$5.00"],
    ["Net sales", "$18.92"],
    ["Shipping", "$0.00"],
    ["Tax", "$0.00"],
    ["Orders", "2"],
    ["Average order value", "$11.96"],
    ["Items sold", "2"],
  ];
  for (const [label, value] of expected) await expect(figure(page, label), label).toHaveText(value);

  // The chart's numbers, as a screen reader reads them: today's net sales.
  const chartTable = page.getByRole("table", { name: "Net sales per day" });
  await expect(chartTable.getByRole("row")).toHaveCount(2);
  await expect(chartTable.getByRole("row").nth(1).getByRole("cell")).toHaveText("$18.92");
  const top = page.getByRole("table", { name: "Top products" });
  await expect(top.getByRole("row").nth(1)).toContainText(BOOK);
  await expect(top.getByRole("row").nth(1).getByRole("cell").nth(1)).toHaveText("2");
  await expect(top.getByRole("row").nth(1).getByRole("cell").nth(2)).toHaveText("$18.92");
  expect(await accessibilityViolations(page)).toEqual([]);

  // Neither order is sent, the partly refunded first one included: two to ship, in the list it opens.
  const toDo = page.getByRole("list", { name: "To do" });
  await expect(toDo.getByRole("link", { name: "Needs attention 0" })).toBeVisible();
  await expect(toDo.getByRole("link", { name: "Low stock 0" })).toBeVisible();
  await toDo.getByRole("link", { name: "To ship 2" }).click();
  await expect(page).toHaveURL(url("/admin/orders?status=paid&mode=test"));
  await expect(page.getByRole("link", { name: second })).toBeVisible();
  await expect(page.getByRole("link", { name: first })).toBeVisible();

  // Last 7 days holds today; a range that ends before it starts is refused by its field and shows today's figures.
  await page.goto(url("/admin?period=last-7-days"));
  await expect(figure(page, "Net sales")).toHaveText("$18.92");
  await expect(page.getByRole("table", { name: "Net sales per day" }).getByRole("row")).toHaveCount(8);
  await page.getByLabel("From", { exact: true }).fill("2026-03-10");
  await page.getByLabel("To", { exact: true }).fill("2026-03-01");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Please correct the following" })).toBeVisible();
  await expect(page.getByText("The last date must not be before the first.").first()).toBeVisible();
  await expect(figure(page, "Orders")).toHaveText("2");
});
