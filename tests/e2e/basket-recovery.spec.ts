import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { fillDeliveryAddress } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const CONSENT = "E-mail me about my basket and offers";

/**
 * Basket reminders, on a production server of its own whose reminders are due after seconds
 * (TEST_ONLY_RECOVERY_SECONDS) and whose e-mail goes to a real SMTP server in this process: a guest ticks the consent
 * beside the address and leaves; "You left something in your basket" arrives; its link, opened in another browser,
 * brings the basket back without signing in; paying there counts as recovered on the console's dashboard.
 */
test.describe("basket reminders", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-recovery-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        TEST_ONLY_RECOVERY_SECONDS: "2",
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
  const basketLink = (page: Page) => page.getByRole("banner").getByRole("link", { name: /^Basket,/ });

  test("a guest who ticked it is reminded, comes back from the e-mail in another browser, and pays: recovered", async ({
    browser,
  }) => {
    const email = `leaver${Date.now()}@shop.test`;
    const leaving = await browser.newPage();
    await leaving.goto(url("/"));
    await leaving
      .getByRole("article", { name: BOOK, exact: true })
      .getByRole("button", { name: "Add to Basket" })
      .click();
    await expect(basketLink(leaving)).toHaveAccessibleName("Basket, 1 item");
    await expect(basketLink(leaving)).toHaveAttribute("aria-busy", "false");
    await leaving.goto(url("/payment"));
    await expect(leaving.getByLabel(CONSENT)).not.toBeChecked();
    await fillDeliveryAddress(leaving, { email, basketReminders: true });
    await leaving.close();

    const reminders = () => catcher.to(email).filter((mail) => /basket/.test(mail.subject));
    await expect
      .poll(() => reminders().map((mail) => mail.subject), { timeout: 30_000 })
      .toEqual(["You left something in your basket"]);
    const [reminder] = catcher.to(email);
    expect(reminder!.body).toContain(BOOK);
    expect(reminder!.body).toContain("$11.96");
    expect(reminder!.header("list-unsubscribe")).toContain("/unsubscribe?token=");
    const restore = reminder!.links.find((link) => new URL(link).pathname === "/basket/restore")!;

    // Another browser: nobody signed in, the basket empty until the link.
    const context = await browser.newContext();
    const returning = await context.newPage();
    await returning.goto(restore.replace(new URL(restore).origin, shop.origin));
    await expect(returning).toHaveURL(url("/checkout?basket-link=restored"));
    await expect(returning.getByRole("status").filter({ hasText: "Welcome back" })).toHaveText(
      "Welcome back: the items from your e-mail are in your basket.",
    );
    await expect(returning.getByTestId("basket-item")).toHaveCount(1);
    await expect(returning.getByTestId("basket-item")).toContainText(BOOK);
    await expect(returning.getByText("Hello, Guest")).toBeVisible();

    await returning.getByRole("link", { name: "Proceed to Checkout" }).click();
    await expect(returning).toHaveURL(url("/payment"));
    await fillDeliveryAddress(returning, { email });
    await enterCard(returning, "4242424242424242");
    await returning.getByRole("button", { name: /^(Buy Now|Processing)$/ }).click();
    await expect(returning).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    const total =
      (await returning
        .getByTestId("order")
        .getByText(/Order Total: \$/)
        .first()
        .textContent()) ?? "";
    await context.close();
    // Paid and emptied: no second e-mail about it, however long the sweep keeps running.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(reminders()).toHaveLength(1);

    const operator = await browser.newPage();
    await operator.goto(url("/login"));
    await operator.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await operator.getByLabel("Password").fill(OPERATOR.password);
    await operator.getByRole("button", { name: "Sign In" }).click();
    await expect(operator).toHaveURL(url("/"));
    await operator.goto(url("/admin"));
    const recovery = operator.getByRole("region", { name: "Basket recovery" });
    const figure = (label: string) =>
      recovery.locator("div").filter({ has: operator.getByText(label, { exact: true }) });
    await expect(figure("Baskets reminded").locator("dd")).toHaveText("1");
    await expect(figure("Returned from the e-mail").locator("dd")).toHaveText("1");
    await expect(figure("Recovered orders").locator("dd")).toHaveText("1");
    await expect(figure("Recovered sales").locator("dd")).toHaveText(total.replace(/^.*Order Total: /, "").trim());

    // The settings: a clear refusal changes nothing; a good value is kept.
    await operator.getByRole("link", { name: "Basket reminder settings" }).click();
    await expect(operator.getByRole("heading", { name: "Basket reminders", level: 1 })).toBeVisible();
    await operator.getByLabel("Hours after the basket's last change").fill("0");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByText("Hours is a whole number from 1 to 168.")).toBeVisible();
    await operator.getByLabel("Hours after the basket's last change").fill("6");
    await operator.getByLabel("Send a second reminder 24 hours later").check();
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByText("Basket reminder settings saved.")).toBeVisible();
    await operator.reload();
    await expect(operator.getByLabel("Hours after the basket's last change")).toHaveValue("6");
    await expect(operator.getByLabel("Send a second reminder 24 hours later")).toBeChecked();
  });

  test("without JavaScript, registering with the tick turns the account's preference on, and the account page turns it off", async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(`keeper${Date.now()}@shop.test`);
    await page.getByLabel("Password").fill("a long enough passphrase 42");
    await page.getByLabel(CONSENT).check();
    await page.getByRole("button", { name: "Create your account" }).click();
    await expect(page).toHaveURL(url("/"));
    await page.goto(url("/account"));
    const preference = page.getByRole("region", { name: "E-mail preferences" }).getByLabel(CONSENT);
    await expect(preference).toBeChecked();
    await preference.uncheck();
    await page.getByRole("region", { name: "E-mail preferences" }).getByRole("button", { name: "Save" }).click();
    await page.goto(url("/account"));
    await expect(page.getByRole("region", { name: "E-mail preferences" }).getByLabel(CONSENT)).not.toBeChecked();
    await context.close();
  });
});
