import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { BOOK, guestBuysTheBook } from "./support/guest-buys";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR, signInAsOperator } from "./support/operator";

const WITHDRAW = "Withdraw from contract here";

/**
 * The EU withdrawal function, on a production server of its own whose e-mail goes to a real SMTP server in this
 * process: a guest orders to Germany, opens the order from its e-mail in another browser, withdraws in one page, and
 * reads "We received your withdrawal" with its content, date and time; the console lists it apart from returns. An
 * order to the United States has no such function.
 */
test.describe("withdrawing from a contract", () => {
  test.describe.configure({ mode: "serial", timeout: 180_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-withdrawal-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        SHOP_TIME_ZONE: "Europe/Berlin",
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

  /** A guest buys the book twice over, delivered to Berlin; the order's number. */
  async function guestBuysToGermany(page: Page, email: string): Promise<string> {
    await page.goto(url("/"));
    const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
    await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
    await expect(basket).toHaveAccessibleName("Basket, 1 item");
    await expect(basket).toHaveAttribute("aria-busy", "false");
    await page.goto(url("/payment"));
    await page.getByLabel("Full name").fill("Grete Müller");
    await page.getByLabel("Address line 1").fill("Hauptstraße 1");
    await page.getByLabel("City").fill("Berlin");
    await page.getByLabel("Country").selectOption("DE");
    await page.getByLabel("Postal code", { exact: true }).fill("10115");
    await page.getByLabel("E-mail for your receipt").fill(email);
    await page.getByRole("button", { name: "Deliver to this address" }).click();
    await expect(page.getByTestId("delivery-address")).toContainText("Berlin");
    await enterCard(page, "4242424242424242");
    await page.getByRole("button", { name: "Buy Now" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    return new URL(page.url()).searchParams.get("placed") ?? "";
  }

  test("a guest's order to Germany, withdrawn from the e-mailed link, acknowledged by e-mail", async ({ browser }) => {
    const email = `grete${Date.now()}@shop.test`;
    const buying = await browser.newPage();
    const number = await guestBuysToGermany(buying, email);
    await buying.close();

    await expect.poll(() => catcher.to(email).length, { timeout: 30_000 }).toBe(1);
    const confirmation = catcher.to(email)[0]!;
    const orderLink = confirmation.links.find((link) => new URL(link).pathname === `/orders/${number}`)!;
    expect(new URL(orderLink).searchParams.get("access")).toBeTruthy();

    // Another browser, nobody signed in: the e-mailed link opens the order, and the function is one click away.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(orderLink);
    await page.getByRole("link", { name: WITHDRAW }).click();
    await expect(page.getByRole("heading", { name: `Withdraw from order ${number}` })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: new RegExp(BOOK.slice(0, 20)) })).toBeChecked();
    await expect(page.getByText("Grete Müller")).toBeVisible();
    await expect(page.getByText(email)).toBeVisible();
    await expect(page.getByText(/reason/i)).toHaveCount(0);
    await page.getByRole("button", { name: "Confirm withdrawal" }).click();

    const notice = page.getByRole("status").filter({ hasText: "We received your withdrawal on" });
    await expect(notice).toBeVisible();
    await expect(notice).toContainText(/(CET|GMT\+1)/);
    await expect(page.getByRole("link", { name: WITHDRAW })).toHaveCount(0);
    await expect(page.getByTestId("order-withdrawals")).toContainText(BOOK);

    const acknowledgements = () => catcher.to(email).filter((mail) => mail.subject.includes("withdrawal"));
    await expect.poll(() => acknowledgements().length, { timeout: 30_000 }).toBe(1);
    const acknowledgement = acknowledgements()[0]!;
    expect(acknowledgement.subject).toBe(`We received your withdrawal from Storefront order ${number}`);
    expect(acknowledgement.body).toContain("We received your withdrawal");
    expect(acknowledgement.body).toContain(`1 × ${BOOK}`);
    expect(acknowledgement.body).toContain("Grete Müller");
    expect(acknowledgement.body).toMatch(
      /on [A-Z][a-z]+ \d{1,2}(st|nd|rd|th) \d{4}, \d{1,2}:\d{2}(am|pm) (CET|GMT\+1)/,
    );
    expect(acknowledgement.body).toContain("with the original delivery charge");
    // A reload of the page asks nothing again, and no second e-mail comes.
    await page.reload();
    await expect(notice).toBeVisible();
    await context.close();

    // The console lists it apart from returns.
    const operator = await browser.newPage({ baseURL: shop.origin });
    await signInAsOperator(operator);
    await operator.goto(url("/admin/returns?kind=withdrawal"));
    await expect(operator.getByRole("link", { name: new RegExp(`${number}-R1`) })).toBeVisible();
    await operator.goto(url("/admin/returns"));
    await expect(operator.getByRole("link", { name: new RegExp(`${number}-R1`) })).toHaveCount(0);
    await operator.goto(url(`/admin/returns/${number}-R1`));
    await expect(operator.getByText("Withdrawal received")).toBeVisible();
    await operator.close();
    expect(acknowledgements()).toHaveLength(1);
  });

  test("an order to the United States has no withdrawal function; /returns says how to withdraw", async ({
    browser,
  }) => {
    const page = await browser.newPage({ baseURL: shop.origin });
    const number = await guestBuysTheBook(page, `usa${Date.now()}@shop.test`);
    await page.goto(url(`/orders/${number}`));
    await expect(page.getByRole("heading", { name: `Order ${number}` })).toBeVisible();
    await expect(page.getByRole("link", { name: WITHDRAW })).toHaveCount(0);
    expect((await page.goto(url(`/orders/${number}/withdraw`)))?.status()).toBe(404);

    await page.goto(url("/returns"));
    await expect(page.getByRole("heading", { name: "Withdrawing from your order" })).toBeVisible();
    await page.getByRole("link", { name: "Find an order" }).click();
    await expect(page).toHaveURL(/#find-order-heading$/);
    await page.close();
  });
});
