import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";
import { expectHydrated } from "./support/hydrated";

const BOOK_ID = "12321341";
const ECHO_ID = "23445930";
const ECHO = "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric";
const SHOTS = join("test-results", "gift-cards");

/**
 * Gift cards on a production server of its own, with a real SMTP server in this process: the operator makes the book
 * a gift card of any amount; a shopper buys a $50 card for a friend, whose number arrives by e-mail (the buyer is told
 * only who it was sent to); the balance page shows $50.00; at /payment a wrong number is refused in the shop's words and
 * the card applied shows "Gift card ending …" in the totals; the console lists the card. Then the card pays a whole
 * $30.00 order ("Place your order", no card), the balance page shows $20.00, the next $30.00 order takes the $20.00 and
 * the test card pays the $10.00 left, and the operator's refund of that order puts $20.00 back on the gift card first.
 * Last, the card's own purchase refunded gives back only the $20.00 left on it, and disables it.
 */
test.describe("gift cards", () => {
  test.describe.configure({ mode: "serial", timeout: 150_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    mkdirSync(SHOTS, { recursive: true });
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-gift-cards-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        PAYMENT_ATTEMPTS_PER_IP: "100000",
      },
      await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  const url = (path: string) => `${shop.origin}${path}`;
  let code = "";
  /** The order that bought the card. */
  let purchase = "";

  async function operatorPage(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    return page;
  }

  /** The term's value in the payment page's totals ("Gift card ending 7XQ2:" → "-$30.00"). */
  const totalsLine = (page: Page, term: string) =>
    page.getByTestId("order-totals").getByText(term, { exact: true }).locator("xpath=following-sibling::dd[1]");

  /**
   * A shopper adds the Echo from its page, sees it in the basket, and goes on to /payment; the first time, they give
   * the delivery address (the checkout keeps it for their next order).
   */
  async function echoToPayment(page: Page, email: string | null) {
    await page.goto(url("/products/amazon-echo-3rd-generation"));
    await expectHydrated(page);
    await page.getByRole("button", { name: "Add to Basket" }).click();
    const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
    await expect(basket).toHaveAccessibleName("Basket, 1 item");
    await expect(basket).toHaveAttribute("aria-busy", "false");
    await page.goto(url("/checkout"));
    // The basket at checkout is the one just filled, not an empty one.
    await expect(page.getByRole("main").getByText(ECHO).first()).toBeVisible();
    await expect(page.getByRole("main").getByText("$30.00").first()).toBeVisible();
    await page.getByRole("link", { name: "Proceed to Checkout" }).click();
    await expect(page).toHaveURL(url("/payment"));
    if (email) await fillDeliveryAddress(page, { email });
    else await expect(page.getByTestId("delivery-address")).toContainText("Los Angeles, CA 90001");
  }

  /** "Apply" of the gift card's own form (the promotion code has an "Apply" too). */
  async function applyGiftCard(page: Page) {
    const number = page.getByLabel("Gift card or store credit");
    await number.fill(code);
    await page.locator("form", { has: number }).getByRole("button", { name: "Apply" }).click();
    await expect(number).toHaveValue("");
  }

  async function balanceShown(page: Page): Promise<void> {
    await page.goto(url("/gift-cards/balance"));
    await page.getByLabel("Gift card number").fill(code);
    await page.getByRole("button", { name: "Check balance" }).click();
  }

  test("a shopper buys a $50 gift card; its number reaches the recipient, never the buyer", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/products/${BOOK_ID}`));
    await operator.getByLabel("Gift card").selectOption({ label: "Any amount ($5 to $500)" });
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("status")).toContainText(/saved/i);
    await operator.close();

    const page = await browser.newPage();
    await page.goto(url("/products/the-lean-startup"));
    await page.getByLabel("Amount").fill("50");
    await page.getByLabel("Recipient e-mail").fill("friend@example.com");
    await page.getByLabel("Your name").fill("Alex");
    await page.getByLabel("Message").fill("Happy birthday!");
    // Left empty, "Send on" sends the card when the order is paid.
    await expect(page.getByLabel(/^Send on/)).toHaveValue("");
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(SHOTS, `product-${width}.png`), fullPage: true });
    }
    await page.getByRole("button", { name: "Add to Basket" }).click();
    await expect(page).toHaveURL(url("/checkout"));
    await page.getByRole("link", { name: "Proceed to Checkout" }).click();
    await expect(page).toHaveURL(url("/payment"));
    await fillDeliveryAddress(page, { email: "buyer@example.com" });
    await expect(page.getByText("$50.00").first()).toBeVisible();
    await enterCard(page, "4242424242424242");
    await page.getByRole("button", { name: "Buy Now" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    purchase = new URL(page.url()).searchParams.get("placed") ?? "";

    await expect.poll(() => catcher.to("friend@example.com").length, { timeout: 30_000 }).toBe(1);
    const [mail] = catcher.to("friend@example.com");
    expect(mail!.subject).toBe("Alex sent you a $50.00 gift card");
    code = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/.exec(mail!.body)?.[1] ?? "";
    expect(code).not.toBe("");
    // The buyer's receipt never carries it.
    await expect.poll(() => catcher.to("buyer@example.com").length, { timeout: 30_000 }).toBeGreaterThan(0);
    for (const receipt of catcher.to("buyer@example.com")) expect(receipt.body).not.toContain(code);
    // The buyer's order page says where the card went, never its number.
    await page.goto(url(`/orders/${purchase}`));
    await expect(page.getByText("Sent to friend@example.com")).toBeVisible();
    await expect(page.getByRole("main")).not.toContainText(code);
    await page.close();
  });

  test("the balance page and /payment read the number, whatever its case", async ({ browser }) => {
    const page = await browser.newPage();
    await page.goto(url("/gift-cards/balance"));
    await page.getByLabel("Gift card number").fill(code.toLowerCase());
    await page.getByRole("button", { name: "Check balance" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Gift card ending" })).toContainText("$50.00");
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: join(SHOTS, `balance-${width}.png`), fullPage: true });
    }

    // A shopper with something else in the basket applies the card at /payment.
    // Added once the page is live, and kept (the count no longer busy) before leaving: a navigation that starts while
    // the add is on its way cancels it, and /checkout would find the basket empty.
    await page.goto(url("/products/amazon-echo-3rd-generation"));
    await expectHydrated(page);
    await page.getByRole("button", { name: "Add to Basket" }).click();
    const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
    await expect(basket).toHaveAccessibleName("Basket, 1 item");
    await expect(basket).toHaveAttribute("aria-busy", "false");
    await page.goto(url("/checkout"));
    await page.getByRole("link", { name: "Proceed to Checkout" }).click();
    await fillDeliveryAddress(page, { email: "second@example.com" });
    const number = page.getByLabel("Gift card or store credit");
    await number.fill("ABCD EFGH JKLM NPQR");
    await page.locator("form", { has: number }).getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText("This gift card number is not valid.")).toBeVisible();
    await number.fill(code);
    await page.locator("form", { has: number }).getByRole("button", { name: "Apply" }).click();
    // Accepted: the field empties, no refusal is said, and the totals take the card's $50.00 off the $98.99.
    await expect(number).toHaveValue("");
    await expect(page.getByText("This gift card number is not valid.")).toBeHidden();
    const lastFour = code.replace(/ /g, "").slice(-4);
    await expect(totalsLine(page, `Gift card ending ${lastFour}:`)).toContainText("-$50.00");
    await expect(totalsLine(page, "To pay by card:")).toHaveText("$48.99");
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(SHOTS, `payment-${width}.png`), fullPage: true });
    }
    // This shopper changes their mind: "Remove" takes the card off, and what this checkout held of it is let go.
    await page.getByTestId("order-totals").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByTestId("order-totals").getByText(`Gift card ending ${lastFour}:`)).toHaveCount(0);
    await expect(page.getByTestId("order-total")).toContainText("$98.99");
    const other = await browser.newPage();
    await expect(async () => {
      await balanceShown(other);
      await expect(other.getByRole("status").filter({ hasText: "Gift card ending" })).toContainText("$50.00", {
        timeout: 2_000,
      });
    }).toPass({ timeout: 20_000 });
    await other.close();
    await page.close();
  });

  test("the console lists the card by its last four, with its value and balance", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url("/admin/gift-cards"));
    await expect(operator.getByRole("button", { name: "Issue gift card" })).toBeVisible();
    const row = operator.getByRole("row", { name: new RegExp(code.slice(-4)) });
    await expect(row).toContainText("$50.00");
    await expect(row).toContainText("Active");
    for (const width of [390, 1280]) {
      await operator.setViewportSize({ width, height: 900 });
      await operator.screenshot({ path: join(SHOTS, `console-${width}.png`), fullPage: true });
    }
    await operator.close();
  });
  test("the card pays a $30 order whole, $20 of the next with the test card paying the rest, and a refund goes back to it", async ({
    browser,
  }) => {
    const lastFour = code.replace(/ /g, "").slice(-4);
    const cardLine = `Gift card ending ${lastFour}:`;
    const balance = (page: Page) => page.getByRole("status").filter({ hasText: "Gift card ending" });

    // The Echo costs $30.00 for this story (free standard delivery, no tax in California).
    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/products/${ECHO_ID}`));
    await operator.getByLabel("Price").fill("30.00");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("status")).toContainText(/saved/i);

    // First order: $30.00, all of it from the card's $50.00; no card number asked for.
    const shopper = await browser.newPage();
    await echoToPayment(shopper, "holder@example.com");
    await applyGiftCard(shopper);
    await expect(totalsLine(shopper, cardLine)).toContainText("-$30.00");
    await expect(shopper.getByText("Nothing is left to pay by card.")).toBeVisible();
    for (const width of [390, 1280]) {
      await shopper.setViewportSize({ width, height: 900 });
      await shopper.screenshot({ path: join(SHOTS, `paid-whole-${width}.png`), fullPage: true });
    }
    await shopper.getByRole("button", { name: "Place your order" }).click();
    await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);

    await balanceShown(shopper);
    await expect(balance(shopper)).toContainText("$20.00");

    // Second order: $30.00 again; the card's $20.00 and $10.00 by the test card.
    await echoToPayment(shopper, null);
    await applyGiftCard(shopper);
    await expect(totalsLine(shopper, cardLine)).toContainText("-$20.00");
    await expect(totalsLine(shopper, "To pay by card:")).toHaveText("$10.00");
    for (const width of [390, 1280]) {
      await shopper.setViewportSize({ width, height: 900 });
      await shopper.screenshot({ path: join(SHOTS, `paid-part-${width}.png`), fullPage: true });
    }
    await enterCard(shopper, "4242424242424242");
    await shopper.getByRole("button", { name: "Buy Now" }).click();
    await expect(shopper).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    const second = new URL(shopper.url()).searchParams.get("placed") ?? "";

    await balanceShown(shopper);
    await expect(balance(shopper)).toContainText("$0.00");

    // The operator refunds the second order: the gift card gets back what it paid first, the test card the rest.
    await operator.goto(url(`/admin/orders/${second}`));
    await operator.getByLabel(`Quantity to refund of ${ECHO}`).fill("1");
    await operator.getByRole("button", { name: "Refund", exact: true }).click();
    // Asked first, saying where the money goes: the gift card's part, then the test card's.
    await expect(
      operator.getByRole("heading", {
        name: `Refund $30.00: $20.00 to gift card ending ${lastFour} and $10.00 to Visa ending in 4242?`,
      }),
    ).toBeVisible();
    await operator.setViewportSize({ width: 1280, height: 900 });
    await operator.screenshot({ path: join(SHOTS, "refund-confirm-1280.png"), fullPage: true });
    await operator.getByRole("button", { name: "Refund $30.00" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Refunded $30.00." })).toBeVisible();
    await operator.screenshot({ path: join(SHOTS, "refunded-order-1280.png"), fullPage: true });

    await balanceShown(shopper);
    await expect(balance(shopper)).toContainText("$20.00");
    await shopper.screenshot({ path: join(SHOTS, "balance-after-refund-1280.png"), fullPage: true });

    await operator.goto(url("/admin/gift-cards"));
    await expect(operator.getByRole("row", { name: new RegExp(lastFour) })).toContainText("$20.00");
    await operator.close();
    await shopper.close();
  });
  test("refunding the card's purchase by amount disables it and gives back only what is left on it", async ({
    browser,
  }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/orders/${purchase}`));
    // No quantities and no amount: everything that can go back, which is the $20.00 left on the card, not the $50.00.
    await operator.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(operator.getByRole("heading", { name: "Refund $20.00 to Visa ending in 4242?" })).toBeVisible();
    await expect(
      operator.getByText("The gift card it bought will be disabled: what is left on it comes back."),
    ).toBeVisible();
    await operator.screenshot({ path: join(SHOTS, "refund-purchase-confirm-1280.png"), fullPage: true });
    await operator.getByRole("button", { name: "Refund $20.00" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Refunded $20.00." })).toBeVisible();

    const lastFour = code.replace(/ /g, "").slice(-4);
    await operator.goto(url("/admin/gift-cards"));
    const row = operator.getByRole("row", { name: new RegExp(lastFour) });
    await expect(row).toContainText("Disabled");
    await expect(row).toContainText("$0.00");
    await operator.close();

    const page = await browser.newPage();
    await balanceShown(page);
    await expect(page.getByText("This gift card has been disabled.")).toBeVisible();
    await page.close();
  });
});
