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
const ECHO = /^Amazon Echo/;

/** How far the page moved while it loaded again (Chromium's cumulative layout shift, every entry counted). */
async function layoutShiftOfReload(page: Page): Promise<number> {
  await page.addInitScript(() => {
    const counted = window as unknown as { layoutShift: number };
    counted.layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) counted.layoutShift += (entry as unknown as { value: number }).value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.reload({ waitUntil: "networkidle" });
  return page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift);
}

/**
 * Delivery options and sales tax, on a production server of its own (its rates must not reach the other stories'
 * totals), sending its e-mail to a real SMTP server in this process. The operator sets the story's rates in the
 * console; Californians pay $27.82 for the book by Express and $106.17 for the Echo by free Standard, and the
 * totals agree on /payment, the order page, the e-mail and the console; a Canadian cannot pay once Canada is out of
 * the zone; without JavaScript the delivery option is chosen with its own button.
 */
test.describe("delivery options and sales tax", () => {
  test.describe.configure({ mode: "serial", timeout: 90_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    // A second production server starting beside the suite's own, on a fresh embedded database: on a busy machine
    // that takes most of a minute, sometimes more.
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-shipping-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        PAYMENT_ATTEMPTS_PER_IP: "100000",
      },
      // Beside the suite's own port (E2E_PORT), as the machine's ports are shared out.
      process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 1 : await freePort(),
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

  async function addToBasket(page: Page, name: string | RegExp) {
    await page.goto(url("/"));
    await page
      .getByRole("article", { name, exact: typeof name === "string" })
      .getByRole("button", { name: "Add to Basket" })
      .click();
    await expect(page.getByRole("banner").getByRole("link", { name: /^Basket,/ })).toHaveAttribute(
      "aria-busy",
      "false",
    );
    await page.goto(url("/payment"));
  }

  async function fillAddress(
    page: Page,
    email: string,
    { country = "US", region = "CA", city = "Los Angeles", postalCode = "90001" } = {},
  ) {
    await page.getByLabel("Full name").fill("Ada Lovelace");
    await page.getByLabel("Address line 1").fill("1 Main Street");
    await page.getByLabel("City").fill(city);
    await page.getByLabel("Country").selectOption(country);
    if (country === "US") await page.getByLabel("State").selectOption(region);
    else await page.getByLabel("Region", { exact: true }).fill(region);
    await page.getByLabel(country === "US" ? "ZIP code" : "Postal code", { exact: true }).fill(postalCode);
    await page.getByLabel("E-mail for your receipt").fill(email);
    await page.getByRole("button", { name: "Deliver to this address" }).click();
    await expect(page.getByTestId("delivery-address")).toContainText(city);
  }

  async function pay(page: Page): Promise<string> {
    await enterCard(page, "4242424242424242");
    await page.getByRole("button", { name: "Buy Now" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    return new URL(page.url()).searchParams.get("placed") ?? "";
  }

  test("the operator sets Standard to $5.99 free over $35, adds Express at $14.99 and a California rate of 7.25 %", async ({
    browser,
  }) => {
    const page = await operatorPage(browser);
    await page.goto(url("/admin/shipping"));
    await expect(page.getByRole("heading", { name: "Everywhere", level: 2 })).toBeVisible();

    // A bad price is refused under its field, and nothing is saved.
    await page.getByText("Standard delivery ·").click();
    const standard = page.locator("details", { hasText: "Standard delivery ·" });
    await standard.getByLabel("Price").fill("-5");
    await standard.getByRole("button", { name: "Save" }).click();
    await expect(
      page.locator("details", { hasText: "Standard delivery ·" }).getByText("A price cannot be negative."),
    ).toBeVisible();
    await expect(page.locator("details", { hasText: "Standard delivery ·" }).getByLabel("Price")).toHaveAttribute(
      "aria-invalid",
      "true",
    );

    const refused = page.locator("details", { hasText: "Standard delivery ·" });
    await refused.getByLabel("Price").fill("5.99");
    await refused.getByLabel("Free over").fill("35");
    await refused.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Method “Standard delivery” saved.")).toBeVisible();
    await expect(page.getByText("Standard delivery · 3-5 business days · $5.99 · free over $35.00")).toBeVisible();

    const adding = page.locator("form", { has: page.getByRole("button", { name: "Add method" }) });
    await adding.getByLabel("Method name").fill("Express delivery");
    await adding.getByLabel("Delivery estimate").fill("1-2 business days");
    await adding.getByLabel("Price").fill("14.99");
    await adding.getByRole("button", { name: "Add method" }).click();
    await expect(page.getByText("Express delivery · 1-2 business days · $14.99")).toBeVisible();

    // A zone with a country another zone has is refused, naming that zone.
    const newZone = page.locator("form", { has: page.getByRole("button", { name: "Add zone" }) });
    await newZone.getByLabel("Zone name").fill("North America");
    await newZone.getByLabel("Countries").fill("CA, MX");
    await newZone.getByRole("button", { name: "Add zone" }).click();
    await expect(page.getByText("Canada is already in the zone “Everywhere”.")).toBeVisible();
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.goto(url("/admin/taxes"));
    await page.getByLabel("Country").fill("US");
    await page.getByLabel("State").fill("CA");
    await page.getByLabel("Rate (%)").fill("107.25");
    await page.getByRole("button", { name: "Add rate" }).click();
    await expect(page.getByText("Enter a rate from 0 to 100 %, with up to 3 decimals, like 7.25.")).toBeVisible();
    await page.getByLabel("Rate (%)").last().fill("7.25");
    await page.getByRole("button", { name: "Add rate" }).click();
    await expect(page.getByRole("heading", { name: "California, United States: 7.25%" })).toBeVisible();
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.goto(url("/admin/audit"));
    await expect(page.getByText("shipping.method.update").first()).toBeVisible();
    await expect(page.getByText("tax.rate.create").first()).toBeVisible();
  });

  test("a Californian buys the $11.96 book by Express and pays $27.82; the order page, the e-mail and the console agree", async ({
    browser,
  }) => {
    const email = `express.${Date.now()}@example.com`;
    const page = await browser.newPage();
    await addToBasket(page, BOOK);
    await fillAddress(page, email);
    const options = page.getByRole("group", { name: "Choose a delivery option" });
    await expect(options.getByRole("radio", { name: /Standard delivery/ })).toBeChecked();
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $18.82");
    await options.getByRole("radio", { name: /Express delivery/ }).check();
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $27.82");
    await expect(page.getByTestId("shipping-total")).toHaveText("$14.99 (Express delivery)");
    await expect(page.getByTestId("tax-total")).toHaveText("$0.87");
    await expect(page.getByTestId("order-totals").locator("dt")).toHaveText([
      "Items:",
      "Shipping & handling:",
      "Total before tax:",
      "Estimated tax to be collected:",
      "Tax rates applied",
      "Order Total:",
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);
    const number = await pay(page);

    await page.goto(url(`/orders/${number}`));
    await expect(page.getByTestId("order-total")).toHaveText("$27.82");
    await expect(page.getByTestId("order-breakdown")).toHaveText([
      "Items$11.96",
      "Shipping & handling (Express delivery)$14.99",
      "Total before tax$26.95",
      "Tax (US-CA 7.25%)$0.87",
    ]);

    await expect.poll(() => catcher.to(email).length).toBeGreaterThan(0);
    const receipt = catcher.to(email)[0]!;
    expect(receipt.subject).toBe(`Your Storefront order ${number}: $27.82`);
    expect(receipt.body).toContain("Shipping & handling (Express delivery)");
    expect(receipt.body).toContain("Tax (US-CA 7.25%)");

    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/orders/${number}`));
    await expect(operator.getByTestId("order-total")).toHaveText("$27.82");
    await expect(operator.getByTestId("order-breakdown")).toHaveText([
      "Items$11.96",
      "Shipping & handling (Express delivery)$14.99",
      "Total before tax$26.95",
      "Tax (US-CA 7.25%)$0.87",
    ]);
  });

  test("a Californian buys the $98.99 Echo by Standard, which ships free over $35, and pays $106.17", async ({
    browser,
  }) => {
    const email = `standard.${Date.now()}@example.com`;
    const page = await browser.newPage();
    await addToBasket(page, ECHO);
    await fillAddress(page, email);
    // Loaded afresh, the page keeps still: the no-JavaScript button below the options is never drawn, so nothing
    // under them moves when the scripts run.
    expect(await layoutShiftOfReload(page)).toBe(0);
    await expect(page.getByRole("button", { name: "Use this delivery option" })).toHaveCount(0);
    await expect(page.getByRole("radio", { name: /Standard delivery 3-5 business days FREE/ })).toBeChecked();
    await expect(page.getByTestId("shipping-total")).toHaveText("FREE (Standard delivery)");
    await expect(page.getByTestId("order-total")).toHaveText("Order Total: $106.17");
    const number = await pay(page);
    await page.goto(url(`/orders/${number}`));
    await expect(page.getByTestId("order-total")).toHaveText("$106.17");
    await expect.poll(() => catcher.to(email)[0]?.subject).toBe(`Your Storefront order ${number}: $106.17`);
  });

  test("after the operator takes Canada out of the zone, a Canadian address cannot pay", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url("/admin/shipping"));
    const zone = operator.locator("form", { has: operator.getByRole("button", { name: "Save" }) }).first();
    const countries = await zone.getByLabel("Countries").inputValue();
    await zone.getByLabel("Countries").fill(countries.replace(/\bCA\b,?\s*/, ""));
    await zone.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByText("Zone “Everywhere” saved.")).toBeVisible();

    const page = await browser.newPage();
    await addToBasket(page, BOOK);
    await fillAddress(page, `canada.${Date.now()}@example.com`, {
      country: "CA",
      region: "ON",
      city: "Toronto",
      postalCode: "M5V 2T6",
    });
    await expect(page.getByTestId("no-delivery")).toHaveText("We don't deliver to Canada yet");
    await enterCard(page, "4242424242424242");
    await expect(page.getByRole("button", { name: "Buy Now" })).toBeDisabled();
    const refused = await page.request.post(url("/payments/create?total=1196"));
    expect(refused.status()).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "We don't deliver to Canada yet",
    );
  });

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });

    test("a shopper chooses Express with its own button and sees the totals change", async ({ page }) => {
      await page.goto(url("/"));
      await page
        .getByRole("article", { name: BOOK, exact: true })
        .getByRole("button", { name: "Add to Basket" })
        .click();
      await page.goto(url("/payment"));
      await fillAddress(page, `nojs.${Date.now()}@example.com`);
      await expect(page.getByTestId("order-total")).toHaveText("Order Total: $18.82");
      await page.getByRole("radio", { name: /Express delivery/ }).check();
      await page.getByRole("button", { name: "Use this delivery option" }).click();
      await expect(page.getByRole("radio", { name: /Express delivery/ })).toBeChecked();
      await expect(page.getByTestId("order-total")).toHaveText("Order Total: $27.82");
    });
  });
});
