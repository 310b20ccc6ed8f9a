import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { accessibilityViolations } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const MONITOR = /^Samsung LC49HG90DMUXEN/;

/**
 * Promotion codes on a production server of its own (its codes and rates must not reach the other stories), with a
 * real SMTP server in this process: the operator makes SAVE10 in the console, a shopper pays $179.99 for the $199.99
 * monitor with it and the order, the e-mail and the console say so, the next shopper is told it has been used;
 * paused, expired and unknown codes get their sentences; a free-delivery code zeroes the shipping; a 100 % code
 * places a $0.00 order without a card; and without JavaScript a code is applied by a plain form post.
 */
test.describe("promotion codes", () => {
  test.describe.configure({ mode: "serial", timeout: 150_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-promotions-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        PAYMENT_ATTEMPTS_PER_IP: "100000",
      },
      process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 3 : await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  const url = (path: string) => `${shop.origin}${path}`;

  async function operatorPage(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    return page;
  }

  async function newPromotion(
    page: Page,
    fields: {
      code: string;
      type?: string;
      value?: string;
      minimum?: string;
      starts?: string;
      ends?: string;
      uses?: string;
      status?: string;
    },
  ) {
    await page.goto(url("/admin/promotions"));
    const form = page.locator("form", { has: page.getByRole("button", { name: "Save" }) });
    await form.getByLabel("Code").fill(fields.code);
    await form.getByLabel("Type").selectOption({ label: fields.type ?? "Percentage off" });
    await form.getByLabel("Value").fill(fields.value ?? "");
    await form.getByLabel("Minimum subtotal").fill(fields.minimum ?? "");
    await form.getByLabel("Starts").fill(fields.starts ?? "");
    await form.getByLabel("Ends").fill(fields.ends ?? "");
    await form.getByLabel("Total uses").fill(fields.uses ?? "");
    await form.getByLabel("Status").selectOption({ label: fields.status ?? "Active" });
    await form.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("status").filter({ hasText: `${fields.code.toUpperCase()} saved.` })).toBeVisible();
  }

  /** A guest with one product in the basket and a delivery address, on /payment. */
  async function shopperOnPayment(
    browser: Browser,
    product: string | RegExp,
    email: string,
    { javaScriptEnabled = true } = {},
  ): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(url("/"));
    await page
      .getByRole("article", { name: product, exact: typeof product === "string" })
      .getByRole("button", { name: "Add to Basket" })
      .click();
    if (javaScriptEnabled)
      await expect(page.getByRole("banner").getByRole("link", { name: /^Basket,/ })).toHaveAttribute(
        "aria-busy",
        "false",
      );
    await page.goto(url("/payment"));
    await page.getByLabel("Full name").fill("Ada Lovelace");
    await page.getByLabel("Address line 1").fill("1 Main Street");
    await page.getByLabel("City").fill("Los Angeles");
    await page.getByLabel("Country").selectOption("US");
    await page.getByLabel("State").selectOption("CA");
    await page.getByLabel("ZIP code", { exact: true }).fill("90001");
    await page.getByLabel("E-mail for your receipt").fill(email);
    await page.getByRole("button", { name: "Deliver to this address" }).click();
    await expect(page.getByTestId("delivery-address")).toContainText("Los Angeles");
    return page;
  }

  async function apply(page: Page, code: string) {
    await page.getByLabel("Promotion code").fill(code);
    // The code's own Apply: /payment has another, for a gift card or store credit.
    await page.getByTestId("promotion").getByRole("button", { name: "Apply" }).click();
  }

  test("the operator makes SAVE10: 10 % off, minimum $20, one use; a bad value is refused under its field", async ({
    browser,
  }) => {
    const page = await operatorPage(browser);
    await page.goto(url("/admin/promotions"));
    await expect(page.getByText("No promotions yet.")).toBeVisible();
    const form = page.locator("form", { has: page.getByRole("button", { name: "Save" }) });
    await form.getByLabel("Code").fill("SAVE10");
    await form.getByLabel("Value").fill("110");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("A percentage is a whole number from 1 to 100.")).toBeVisible();
    await expect(page.getByLabel("Value")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByRole("table")).toHaveCount(0);

    await newPromotion(page, { code: "save10", value: "10", minimum: "20", uses: "1" });
    const row = page.getByRole("row", { name: /SAVE10/ });
    await expect(row).toContainText("Percentage off");
    await expect(row).toContainText("10% off");
    await expect(row).toContainText("0 / 1");
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  test("a shopper pays $179.99 for the $199.99 monitor with save10; the order page, the e-mail and the console agree", async ({
    browser,
  }) => {
    const email = `save10.${Date.now()}@example.com`;
    const page = await shopperOnPayment(browser, MONITOR, email);
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $199.99");
    await apply(page, "save10");
    await expect(page.getByTestId("order-totals")).toContainText("Promotion applied: SAVE10 -$20.00 Remove");
    await expect(page.getByRole("button", { name: "Remove" })).toBeVisible();
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $179.99");
    expect(await accessibilityViolations(page)).toEqual([]);
    await enterCard(page, "4242424242424242");
    await page.getByRole("button", { name: "Buy Now" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    const number = new URL(page.url()).searchParams.get("placed") ?? "";

    await page.goto(url(`/orders/${number}`));
    await expect(page.getByTestId("order-total")).toHaveText("$179.99");
    await expect(page.getByTestId("order-breakdown").filter({ hasText: "Promotion applied" })).toHaveText(
      "Promotion appliedSAVE10 -$20.00",
    );
    await expect.poll(() => catcher.to(email)[0]?.subject).toBe(`Your Storefront order ${number}: $179.99`);
    expect(catcher.to(email)[0]!.body).toContain("SAVE10 -$20.00");

    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/orders/${number}`));
    await expect(operator.getByTestId("order-total")).toHaveText("$179.99");
    await expect(operator.getByTestId("order-breakdown").filter({ hasText: "Promotion applied" })).toHaveText(
      "Promotion appliedSAVE10 -$20.00",
    );
    await operator.goto(url("/admin/promotions"));
    await expect(operator.getByRole("row", { name: /SAVE10/ })).toContainText("1 / 1");
  });

  test("the next shopper is told SAVE10 has been used; paused, expired and unknown codes get their sentences", async ({
    browser,
  }) => {
    const operator = await operatorPage(browser);
    await newPromotion(operator, { code: "PAUSED5", value: "5", status: "Paused" });
    await newPromotion(operator, { code: "OLD20", value: "20", starts: "2020-01-01", ends: "2020-01-31" });

    const page = await shopperOnPayment(browser, MONITOR, `second.${Date.now()}@example.com`);
    for (const [code, sentence] of [
      ["SAVE10", "This code has already been used."],
      ["PAUSED5", "This code isn't valid."],
      ["OLD20", "This code has expired."],
      ["NOPE-123", "This code isn't valid."],
    ] as const) {
      await apply(page, code);
      await expect(page.locator("#promotion-code-error")).toHaveText(sentence);
      await expect(page.getByLabel("Promotion code")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByTestId("order-total")).toHaveText("Order Total: $199.99");
    }
  });

  test("a free-delivery code makes the delivery $0.00", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url("/admin/shipping"));
    await operator.getByText("Standard delivery ·").click();
    const standard = operator.locator("details", { hasText: "Standard delivery ·" });
    await standard.getByLabel("Price").fill("5.99");
    await standard.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByText("Method “Standard delivery” saved.")).toBeVisible();
    await newPromotion(operator, { code: "SHIPFREE", type: "Free delivery" });

    const page = await shopperOnPayment(browser, BOOK, `shipfree.${Date.now()}@example.com`);
    await expect(page.getByTestId("shipping-total")).toHaveText("$5.99 (Standard delivery)");
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $17.95");
    await apply(page, "shipfree");
    await expect(page.getByTestId("order-totals")).toContainText("Promotion applied: SHIPFREE -$0.00");
    await expect(page.getByTestId("shipping-total")).toHaveText("FREE (Standard delivery)");
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $11.96");
  });

  test("a 100 % code places a $0.00 order without a card", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await newPromotion(operator, { code: "ONUS", value: "100", uses: "10" });
    const email = `onus.${Date.now()}@example.com`;
    const page = await shopperOnPayment(browser, BOOK, email);
    await apply(page, "ONUS");
    await expect(page.getByTestId("order-totals")).toContainText("Promotion applied: ONUS -$11.96");
    // The delivery is still charged: $5.99 is left to pay, by card.
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $5.99");
    await page.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByLabel("Promotion code")).toBeVisible();
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $17.95");

    // With free delivery again, the code pays for everything.
    await operator.goto(url("/admin/shipping"));
    await operator.getByText("Standard delivery ·").click();
    const standard = operator.locator("details", { hasText: "Standard delivery ·" });
    await standard.getByLabel("Price").fill("0");
    await standard.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByText("Method “Standard delivery” saved.")).toBeVisible();

    await page.reload();
    await apply(page, "ONUS");
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $0.00");
    await expect(page.getByLabel("Card number")).toHaveCount(0);
    await page.getByRole("button", { name: "Place your order" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    const number = new URL(page.url()).searchParams.get("placed") ?? "";
    await page.goto(url(`/orders/${number}`));
    await expect(page.getByTestId("order-total")).toHaveText("$0.00");
    await expect(page.getByTestId("order-card")).toHaveText("None (promotion)");
    await expect.poll(() => catcher.to(email)[0]?.subject).toBe(`Your Storefront order ${number}: $0.00`);
  });

  test("without JavaScript a code is applied and removed by plain form posts", async ({ browser }) => {
    const page = await shopperOnPayment(browser, BOOK, `nojs.${Date.now()}@example.com`, { javaScriptEnabled: false });
    await apply(page, "NOSUCH");
    await expect(page.locator("#promotion-code-error")).toHaveText("This code isn't valid.");
    await apply(page, "shipfree");
    await expect(page.getByTestId("order-totals")).toContainText("Promotion applied: SHIPFREE -$0.00");
    await page.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByLabel("Promotion code")).toBeVisible();
  });
});
