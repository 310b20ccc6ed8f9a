import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { BOOK, guestBuysTheBook } from "./support/guest-buys";
import { OPERATOR } from "./support/operator";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";

/**
 * Returns, on a production server of their own that sends its e-mail to a real SMTP server in this process: a guest
 * buys two of the book, the operator ships it, and the guest, from the link in the shipped e-mail on a browser without
 * JavaScript, returns one; the operator approves, receives and refunds it, and both read the same figure. Another
 * return is declined with a message. Each e-mail is read at the SMTP server.
 */
test.describe("returns", () => {
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-returns-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
      },
      await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  /** The e-mails to `email` with this subject, once they arrive. */
  async function emailsTo(email: string, subject: string | RegExp, count = 1) {
    await expect
      .poll(() => catcher.to(email).filter((message) => message.subject.match(subject)).length, { timeout: 30_000 })
      .toBe(count);
    return catcher.to(email).filter((message) => message.subject.match(subject));
  }

  async function operatorPage(browser: Browser): Promise<Page> {
    const context = await browser.newContext({ baseURL: shop.origin });
    const page = await context.newPage();
    await page.goto("/login");
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(`${shop.origin}/`);
    return page;
  }

  async function ship(operator: Page, number: string) {
    await operator.goto(`/admin/orders/${number}`);
    await operator.getByLabel("Carrier").fill("UPS");
    await operator.getByLabel("Tracking number").fill(`1Z${Date.now()}`);
    await operator.getByRole("button", { name: "Mark as shipped" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Marked as shipped." })).toBeVisible();
  }

  /** The guest's signed link to their order, from the shipped e-mail. */
  async function orderLinkFromEmail(email: string, number: string): Promise<string> {
    const [shipped] = await emailsTo(email, /shipped/i);
    const link = shipped!.links.find((candidate) => new URL(candidate).pathname === `/orders/${number}`);
    expect(link).toMatch(/\?access=[A-Za-z0-9_-]{43}$/);
    return link!;
  }

  test("a guest returns 1 of 2 from the e-mailed link without JavaScript; the operator approves, receives and refunds the same figure", async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const email = `returns.${Date.now()}@example.com`;
    const buyer = await (await browser.newContext({ baseURL: shop.origin })).newPage();
    const number = await guestBuysTheBook(buyer, email, 2);
    const operator = await operatorPage(browser);
    await ship(operator, number);

    // Another device, no session, no JavaScript: the e-mail's link opens the order.
    const guest = await (await browser.newContext({ baseURL: shop.origin, javaScriptEnabled: false })).newPage();
    const link = await orderLinkFromEmail(email, number);
    await guest.goto(link);
    await expect(guest.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
    const section = guest.getByRole("region", { name: "Return or replace items" });
    await expect(section).toBeVisible();
    await section.getByLabel("Quantity to return").selectOption("1");
    await section.getByLabel("Reason").selectOption({ label: "Changed my mind" });
    await section.getByRole("radio", { name: "Refund" }).check();
    await section.getByRole("button", { name: "Show refund" }).click();
    await expect(guest.getByTestId("return-refund")).toHaveText("Refund: $11.96");
    await guest.setViewportSize({ width: 390, height: 844 });
    await guest.screenshot({ path: "test-results/returns-request-390.png", fullPage: true });
    const overflow = await guest.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await guest.setViewportSize({ width: 1280, height: 900 });
    await guest.getByRole("button", { name: "Request return" }).click();
    await expect(guest.getByRole("heading", { name: "We received your return request" })).toBeVisible();
    await expect(guest.getByText(`Return ${number}-R1. Refund: $11.96.`)).toBeVisible();
    const [requested] = await emailsTo(email, "We received your return request");
    expect(requested!.body).toContain(BOOK);
    expect(requested!.body).toContain("Refund: $11.96");

    // The operator: Requested first, then approve, receive, refund.
    await operator.goto("/admin/returns");
    await operator.getByRole("link", { name: `${number}-R1` }).click();
    await expect(operator.getByTestId("return-figure")).toHaveText("$11.96");
    await operator.getByRole("button", { name: "Approve" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Approved." })).toBeVisible();
    await emailsTo(email, "Your return is approved");
    await operator.getByRole("button", { name: `Mark received: ${BOOK}` }).click();
    await expect(
      operator.getByRole("status").filter({ hasText: "Marked received. 1 put back in stock." }),
    ).toBeVisible();
    await operator.screenshot({ path: "test-results/returns-console-1280.png", fullPage: true });
    await operator.getByRole("button", { name: "Refund $11.96" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Refunded $11.96." })).toBeVisible();
    const [refunded] = await emailsTo(email, /refund for order/);
    expect(refunded!.subject).toContain("$11.96");

    // The shopper's page says the same.
    await guest.goto(link);
    const returned = guest.getByTestId("order-return");
    await expect(returned).toContainText(`Return ${number}-R1: Refunded`);
    await expect(returned).toContainText("Refund: $11.96");
    // One left to return; each e-mail once.
    await expect(guest.getByLabel("Quantity to return").locator("option")).toHaveCount(2);
    await emailsTo(email, "We received your return request");
    await emailsTo(email, "Your return is approved");
  });

  test("a return found by its order number and e-mail is declined with the operator's message", async ({ browser }) => {
    test.setTimeout(240_000);
    const email = `declined.${Date.now()}@example.com`;
    const buyer = await (await browser.newContext({ baseURL: shop.origin })).newPage();
    const number = await guestBuysTheBook(buyer, email, 1);
    const operator = await operatorPage(browser);
    await ship(operator, number);

    const guest = await (await browser.newContext({ baseURL: shop.origin })).newPage();
    await guest.goto("/returns");
    await guest.getByLabel("Order number").fill(number);
    await guest.getByLabel("E-mail", { exact: true }).fill("someone.else@example.com");
    await guest.getByRole("button", { name: "Find an order" }).click();
    await expect(guest.getByText("We could not find an order with that number and e-mail.").first()).toBeVisible();
    await guest.getByLabel("E-mail", { exact: true }).fill(email);
    await guest.getByRole("button", { name: "Find an order" }).click();
    await expect(guest.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
    // With JavaScript, the figure follows each change.
    await expect(guest.locator("html[data-hydrated]")).toHaveCount(1);
    await guest.getByLabel("Quantity to return").selectOption("1");
    await guest.getByLabel("Reason").selectOption({ label: "Doesn't fit" });
    await expect(guest.getByTestId("return-refund")).toHaveText("Refund: $11.96");
    await guest.getByRole("button", { name: "Request return" }).click();
    await expect(guest.getByRole("heading", { name: "We received your return request" })).toBeVisible();

    await operator.goto(`/admin/returns/${number}-R1`);
    await operator.getByLabel("Message to the shopper").fill("Books cannot be returned once opened.");
    await operator.getByRole("button", { name: "Decline" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Declined." })).toBeVisible({ timeout: 20_000 });
    const [declined] = await emailsTo(email, "Your return was declined");
    expect(declined!.body).toContain("Books cannot be returned once opened.");
  });
});
