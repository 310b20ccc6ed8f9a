import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import pg from "pg";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { BOOK, guestBuysTheBook } from "./support/guest-buys";
import { OPERATOR } from "./support/operator";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { expectHydrated } from "./support/hydrated";

/** The operator, signed in from the sign-in page of the shop at `origin`. */
async function operatorAt(browser: Browser, origin: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
  await page.getByLabel("Password").fill(OPERATOR.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(`${origin}/`);
  return page;
}

async function ship(operator: Page, number: string) {
  await operator.goto(`/admin/orders/${number}`);
  await operator.getByLabel("Carrier").fill("UPS");
  await operator.getByLabel("Tracking number").fill(`1Z${Date.now()}`);
  await operator.getByRole("button", { name: "Mark as shipped" }).click();
  await expect(operator.getByRole("status").filter({ hasText: "Marked as shipped." })).toBeVisible();
}

/**
 * Returns, on a production server of their own that sends its e-mail to a real SMTP server in this process: a guest
 * buys two of the book, the operator ships it, and the guest, from the link in the shipped e-mail on a browser without
 * JavaScript, returns one; the operator approves, receives and refunds it, and both read the same figure. A signed-in
 * shopper has a size replaced by another (a $0.00 order, the difference refunded). Another return is declined with a
 * message. Each e-mail is read at the SMTP server.
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

  const operatorPage = (browser: Browser) => operatorAt(browser, shop.origin);

  /** The operator imports a tee in S (sold out), M and XL at $20.00 and $22.00, and L at $18.00, from a CSV file. */
  async function importTee(operator: Page, run: string) {
    const csv = [
      "URL handle,Title,Description,Vendor,Type,Tags,Status,Option1 name,Option1 value,SKU,Price,Inventory tracker,Inventory quantity,Departments",
      `return-tee-${run},Return Tee ${run},A cotton tee.,Acme,Shirts,,active,Size,S,RT-S-${run},20.00,shopify,0,Clothing > T-shirts`,
      `return-tee-${run},,,,,,,,M,RT-M-${run},20.00,shopify,3,`,
      `return-tee-${run},,,,,,,,L,RT-L-${run},18.00,shopify,3,`,
      `return-tee-${run},,,,,,,,XL,RT-XL-${run},22.00,shopify,3,`,
    ].join("\n");
    await operator.goto("/admin/products/import");
    await expectHydrated(operator);
    await operator
      .getByLabel("CSV file")
      .setInputFiles({ name: "tee.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await operator.getByRole("button", { name: "Import" }).click();
    await expect(
      operator.getByRole("status").filter({ hasText: /Imported 4 rows at .*: 1 created, 0 updated, 0 unchanged\./ }),
    ).toBeVisible();
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

  test("a signed-in shopper replaces a size that does not fit; the operator approves, receives and replaces it with a $0.00 order, and the difference is refunded", async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const run = String(Date.now());
    const tee = `Return Tee ${run}`;
    const operator = await operatorPage(browser);
    await importTee(operator, run);

    // The shopper, signed in and with JavaScript, buys the tee in M at $20.00.
    const email = `replace.${run}@example.com`;
    const shopper = await (await browser.newContext({ baseURL: shop.origin })).newPage();
    await shopper.goto("/login");
    await shopper.getByLabel("E-mail", { exact: true }).fill(email);
    await shopper.getByLabel("Password").fill("correct horse battery");
    await shopper.getByRole("button", { name: "Create your account" }).click();
    await expect(shopper).toHaveURL(`${shop.origin}/`);
    await shopper.goto(`/products/return-tee-${run}`);
    await expectHydrated(shopper);
    await shopper.getByRole("group", { name: "Size" }).getByRole("radio", { name: /^M\b/ }).check();
    await shopper.getByRole("button", { name: "Add to Basket" }).click();
    const basket = shopper.getByRole("banner").getByRole("link", { name: /^Basket,/ });
    await expect(basket).toHaveAccessibleName("Basket, 1 item");
    await expect(basket).toHaveAttribute("aria-busy", "false");
    await shopper.goto("/checkout");
    await shopper.getByRole("link", { name: "Proceed to Checkout" }).click();
    await fillDeliveryAddress(shopper, { name: "Grace Hopper", email: null });
    await enterCard(shopper, "4242424242424242");
    await shopper.getByRole("button", { name: "Buy Now" }).click();
    await expect(shopper).toHaveURL(/\/orders\?placed=SF-/);
    const number = new URL(shopper.url()).searchParams.get("placed")!;
    await ship(operator, number);

    // Doesn't fit: L instead, the only other size in stock at the same price or less (S is sold out, XL dearer).
    await shopper.goto(`/orders/${number}`);
    await expectHydrated(shopper);
    const section = shopper.getByRole("region", { name: "Return or replace items" });
    await section.getByLabel("Quantity to return").selectOption("1");
    await section.getByLabel("Reason").selectOption({ label: "Doesn't fit" });
    await section.getByRole("radio", { name: "Replace with another option" }).check();
    const replacement = section.getByLabel("Replacement option");
    await expect(replacement.locator("option")).toHaveText(["Choose an option", "Size: L, $18.00"]);
    await replacement.selectOption({ label: "Size: L, $18.00" });
    await expect(shopper.getByTestId("return-refund")).toHaveText("Refund: $2.00");
    await shopper.setViewportSize({ width: 390, height: 844 });
    await shopper.screenshot({ path: "test-results/returns-replace-request-390.png", fullPage: true });
    const overflow = await shopper.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shopper.setViewportSize({ width: 1280, height: 900 });
    await shopper.getByRole("button", { name: "Request return" }).click();
    await expect(shopper.getByRole("heading", { name: "We received your return request" })).toBeVisible();
    await expect(shopper.getByText(`Return ${number}-R1. Refund: $2.00.`)).toBeVisible();
    const [requested] = await emailsTo(email, "We received your return request");
    expect(requested!.body).toContain(`${tee} (Size: M)`);
    expect(requested!.body).toContain("Replace with Size: L");

    // The operator approves, marks it received and presses "Replace".
    await operator.goto("/admin/returns");
    await operator.getByRole("link", { name: `${number}-R1` }).click();
    await expect(operator.getByTestId("return-figure")).toHaveText("$2.00");
    await expect(operator.getByRole("row", { name: new RegExp(`${tee}`) })).toContainText("Replace with Size: L");
    await operator.getByRole("button", { name: "Approve" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Approved." })).toBeVisible();
    await emailsTo(email, "Your return is approved");
    await operator.getByRole("button", { name: `Mark received: ${tee} (Size: M)` }).click();
    await expect(
      operator.getByRole("status").filter({ hasText: "Marked received. 1 put back in stock." }),
    ).toBeVisible();
    await expect(operator.getByRole("button", { name: /^Refund/ })).toHaveCount(0);
    await operator.getByRole("button", { name: "Replace", exact: true }).click();
    const made = operator.getByRole("status").filter({ hasText: /^Replacement order SF-/ });
    await expect(made).toHaveText(/^Replacement order SF-\d{4}-[A-Z0-9]{4} made at \$0\.00; \$2\.00 refunded\.$/);
    const replacementNumber = /SF-\d{4}-[A-Z0-9]{4}/.exec((await made.textContent()) ?? "")![0];
    await expect(operator.getByRole("link", { name: replacementNumber })).toBeVisible();
    await expect(operator.getByRole("button", { name: "Replace", exact: true })).toHaveCount(0);
    await operator.setViewportSize({ width: 1280, height: 900 });
    await operator.screenshot({ path: "test-results/returns-replace-console-1280.png", fullPage: true });
    // The replacement order, to the operator: $0.00, the other size, to be shipped like any order.
    await operator.getByRole("link", { name: replacementNumber }).click();
    await expect(operator.getByRole("heading", { name: new RegExp(replacementNumber) })).toBeVisible();
    await expect(operator.getByRole("link", { name: `Return ${number}-R1` })).toBeVisible();
    await expect(operator.getByText("None (replacement)")).toBeVisible();
    await expect(operator.getByRole("main")).toContainText(`${tee} (Size: L)`);
    await expect(operator.getByRole("button", { name: "Mark as shipped" })).toBeVisible();
    // Nothing was paid for it, so there is nothing to refund: cancelling it is named as such.
    await expect(operator.getByRole("heading", { name: "Cancel the order" })).toBeVisible();
    await expect(operator.getByText("Cancels the order. Nothing paid is left to refund.")).toBeVisible();
    await expect(operator.getByRole("button", { name: "Cancel and refund" })).toHaveCount(0);
    await operator.screenshot({ path: "test-results/returns-replacement-order-console-1280.png", fullPage: true });

    // The e-mails: the difference refunded, the replacement order confirmed at $0.00; each once.
    const [refunded] = await emailsTo(email, `refund for order ${number}`);
    expect(refunded!.subject).toContain("$2.00");
    const [confirmed] = await emailsTo(email, `replacement order ${replacementNumber}`);
    expect(confirmed!.subject).toContain("$0.00");
    expect(confirmed!.body).toContain(`the replacement for return ${number}-R1, at no charge`);
    expect(confirmed!.body).toContain(`${tee} (Size: L)`);
    expect(confirmed!.body).not.toContain("We have received your payment");

    // The shopper: the new order in their orders at $0.00, and the return naming it.
    await shopper.goto("/orders");
    const listed = shopper.getByRole("article").filter({ hasText: replacementNumber });
    await expect(listed).toContainText("$0.00");
    await shopper.screenshot({ path: "test-results/returns-replace-orders-1280.png", fullPage: true });
    await shopper.goto(`/orders/${number}`);
    const returned = shopper.getByTestId("order-return");
    await expect(returned).toContainText(`Return ${number}-R1`);
    await expect(returned).toContainText("Refund: $2.00");
    await shopper.setViewportSize({ width: 390, height: 844 });
    await returned.screenshot({ path: "test-results/returns-replace-returned-390.png" });
    await shopper.setViewportSize({ width: 1280, height: 900 });
    await returned.getByRole("link", { name: `Order ${replacementNumber}` }).click();
    await expect(shopper.getByRole("heading", { name: `Order ${replacementNumber}` })).toBeVisible();
    await expect(shopper.getByTestId("order-item")).toContainText(`${tee} (Size: L)`);
    await expect(shopper.getByTestId("order-total")).toHaveText("$0.00");
    await expect(shopper.getByTestId("order-card")).toHaveText(`None: a replacement for return ${number}-R1`);
    await shopper.setViewportSize({ width: 390, height: 844 });
    await shopper.screenshot({ path: "test-results/returns-replace-order-390.png", fullPage: true });
    await emailsTo(email, "We received your return request");
    await emailsTo(email, "Your return is approved");
    await emailsTo(email, `refund for order ${number}`);
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
    await expectHydrated(guest);
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

/**
 * Two production instances on one PostgreSQL schema of their own, as behind a load balancer: an operator on each
 * marks the same returned line received at the same moment. The undamaged unit goes back in stock once, and the
 * return is Received once. PGlite serves one process only, so this needs TEST_DATABASE_URL.
 */
test.describe("a return marked received on two instances at once", () => {
  const url = process.env.TEST_DATABASE_URL;
  const schema = `e2e_returns_received_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const shops: ShopProcess[] = [];
  test.skip(
    () => !url,
    "Two instances share a PostgreSQL database: set TEST_DATABASE_URL (PGlite serves one process only).",
  );

  test.beforeAll(async () => {
    if (!url) return;
    test.setTimeout(300_000);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const databaseUrl = `${url}${url!.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
    const env = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-returns-race-")),
      OPERATOR_EMAIL: OPERATOR.email,
      OPERATOR_PASSWORD: OPERATOR.password,
      AUTH_ATTEMPTS_PER_IP: "10000",
      NEW_SESSIONS_PER_IP: "100000",
    };
    // One after the other: the first migrates and seeds, the second finds it done.
    shops.push(await startShopProcess(env, await freePort(), 200_000));
    shops.push(await startShopProcess(env, await freePort(), 200_000));
  });
  test.afterAll(async () => {
    await Promise.all(shops.map((running) => killShop(running, "SIGTERM")));
    if (!url) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  /** The book's stock as the console's product form shows it. */
  async function bookStock(operator: Page): Promise<string> {
    await operator.goto("/admin/products/12321341");
    return operator.getByLabel("Stock", { exact: true }).inputValue();
  }

  test('"Mark received" pressed on both instances at once puts the undamaged unit back in stock once', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const [first, second] = shops as [ShopProcess, ShopProcess];
    const operatorA = await operatorAt(browser, first.origin);
    await operatorA.goto("/admin/products/12321341");
    await operatorA.getByLabel("Stock", { exact: true }).fill("10");
    await operatorA.getByLabel("Track stock").check();
    await operatorA.getByRole("button", { name: "Save" }).click();
    await expect(operatorA.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

    // A guest buys two of the book on the first instance; it ships; they return both, one arrived damaged.
    const guest = await (await browser.newContext({ baseURL: first.origin })).newPage();
    const number = await guestBuysTheBook(guest, `race.${Date.now()}@example.com`, 2);
    expect(await bookStock(operatorA)).toBe("8");
    await ship(operatorA, number);
    await guest.goto(`/orders/${number}`);
    await expectHydrated(guest);
    await guest.getByLabel("Quantity to return").selectOption("2");
    await guest.getByLabel("Reason").selectOption({ label: "Arrived damaged" });
    await expect(guest.getByTestId("return-refund")).toHaveText("Refund: $23.92");
    await guest.getByRole("button", { name: "Request return" }).click();
    await expect(guest.getByRole("heading", { name: "We received your return request" })).toBeVisible();
    const returnPath = `/admin/returns/${number}-R1`;
    await operatorA.goto(returnPath);
    await operatorA.getByRole("button", { name: "Approve" }).click();
    await expect(operatorA.getByRole("status").filter({ hasText: "Approved." })).toBeVisible();

    // An operator on each instance, the same line, the same counts, at once.
    const operatorB = await operatorAt(browser, second.origin);
    const pages = [operatorA, operatorB];
    for (const operator of pages) {
      await operator.goto(returnPath);
      await expectHydrated(operator);
      await operator.getByLabel("Received", { exact: true }).fill("2");
      await operator.getByLabel("Damaged", { exact: true }).fill("1");
    }
    await Promise.all(
      pages.map((operator) => operator.getByRole("button", { name: `Mark received: ${BOOK}` }).click()),
    );
    const done = (operator: Page) =>
      operator.getByRole("status").filter({ hasText: "Marked received. 1 put back in stock." });
    const refused = (operator: Page) =>
      operator
        .getByRole("alert")
        .filter({ hasText: /changed since the page was drawn|marked received already|cannot be marked received/ });
    for (const operator of pages) await expect(done(operator).or(refused(operator))).toBeVisible();
    const outcomes = await Promise.all(pages.map((operator) => done(operator).count()));
    expect(outcomes.reduce((sum, count) => sum + count, 0)).toBe(1);
    // The refused page draws the return as it now is, beside the refusal.
    const loser = pages[outcomes.indexOf(0)]!;
    await expect(loser.getByTestId("return-line")).toContainText("2 received, 1 damaged");
    await operatorB.screenshot({ path: "test-results/returns-received-twice-1280.png", fullPage: true });

    // Both instances read the same: one unit back (8 + 2 received - 1 damaged), the return Received, once.
    for (const operator of pages) {
      expect(await bookStock(operator)).toBe("9");
      await operator.goto(returnPath);
      await expect(operator.getByTestId("return-line")).toContainText("2 received, 1 damaged");
      await expect(operator.locator(".console-facts dd").first()).toHaveText("Received");
    }
    await operatorB.goto("/admin/audit");
    await expect(
      operatorB
        .getByRole("row")
        .filter({ hasText: "return.receive" })
        .filter({ hasText: `${number}-R1` }),
    ).toHaveCount(1);
  });
});
