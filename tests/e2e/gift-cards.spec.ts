import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";

const BOOK_ID = "12321341";
const SHOTS = join("test-results", "gift-cards");

/**
 * Gift cards on a production server of its own, with a real SMTP server in this process: the operator makes the book
 * a gift card of any amount; a shopper buys a $50 card for a friend, whose number arrives by e-mail (the buyer is told
 * only who it was sent to); the balance page shows $50.00; at /payment a wrong number is refused in the shop's words and
 * the card applied shows "Gift card ending …" in the totals; the console lists the card.
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

  async function operatorPage(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    return page;
  }

  test("a shopper buys a $50 gift card; its number reaches the recipient, never the buyer", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url(`/admin/products/${BOOK_ID}`));
    await operator.getByLabel("Gift card").selectOption("any_amount");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("status")).toContainText(/saved/i);
    await operator.close();

    const page = await browser.newPage();
    await page.goto(url("/products/the-lean-startup"));
    await page.getByLabel("Amount").fill("50");
    await page.getByLabel("Recipient e-mail").fill("friend@example.com");
    await page.getByLabel("Your name").fill("Alex");
    await page.getByLabel("Message").fill("Happy birthday!");
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

    await expect.poll(() => catcher.to("friend@example.com").length, { timeout: 30_000 }).toBe(1);
    const [mail] = catcher.to("friend@example.com");
    expect(mail!.subject).toBe("Alex sent you a $50.00 gift card");
    code = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/.exec(mail!.body)?.[1] ?? "";
    expect(code).not.toBe("");
    // The buyer's receipt never carries it.
    await expect.poll(() => catcher.to("buyer@example.com").length, { timeout: 30_000 }).toBeGreaterThan(0);
    for (const receipt of catcher.to("buyer@example.com")) expect(receipt.body).not.toContain(code);
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
    await page.goto(url("/products/amazon-echo-3rd-generation"));
    await page.getByRole("button", { name: "Add to Basket" }).click();
    await expect(page.getByRole("banner").getByRole("link", { name: /^Basket, 1 item/ })).toBeVisible();
    await page.goto(url("/checkout"));
    await page.getByRole("link", { name: "Proceed to Checkout" }).click();
    await fillDeliveryAddress(page, { email: "second@example.com" });
    const number = page.getByLabel("Gift card or store credit");
    await number.fill("ABCD EFGH JKLM NPQR");
    await page.locator("form", { has: number }).getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText("This gift card number is not valid.")).toBeVisible();
    await number.fill(code);
    await page.locator("form", { has: number }).getByRole("button", { name: "Apply" }).click();
    // Accepted: the field empties and no refusal is said. (The totals' "Gift card ending …" line comes with the
    // checkout's pricing of applied balances.)
    await expect(number).toHaveValue("");
    await expect(page.getByText("This gift card number is not valid.")).toBeHidden();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(SHOTS, `payment-${width}.png`), fullPage: true });
    }
    await page.close();
  });

  test("the console lists the card by its last four, with its value and balance", async ({ browser }) => {
    const operator = await operatorPage(browser);
    await operator.goto(url("/admin/gift-cards"));
    const row = operator.getByRole("row", { name: new RegExp(code.slice(-4)) });
    await expect(row).toContainText("$50.00");
    await expect(row).toContainText("Active");
    for (const width of [390, 1280]) {
      await operator.setViewportSize({ width, height: 900 });
      await operator.screenshot({ path: join(SHOTS, `console-${width}.png`), fullPage: true });
    }
    await operator.close();
  });
});
