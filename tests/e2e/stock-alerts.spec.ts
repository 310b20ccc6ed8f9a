import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import sharp from "sharp";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { accessibilityViolations } from "./support/delivery";
import { gotoHydrated } from "./support/hydrated";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";

/**
 * "Notify me when available", on a production server of its own that sends its e-mail to a real SMTP server in this
 * process: the operator makes a tee whose M and L are out of stock; a guest asks to hear about M (with JavaScript:
 * no page load), confirms from the e-mail, and when the operator restocks M in the console the alert arrives with a
 * link to the M tee. Without JavaScript the same form is a plain post, its errors under the field.
 */
test.describe("back-in-stock alerts", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;
  const title = `Alert Story Tee ${Date.now()}`;
  /** The product's page, once the operator has made it. */
  let productPage = "";

  test.beforeAll(async () => {
    // A second production server starting beside the suite's own, on a fresh embedded database.
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-alerts-")),
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

  const url = (path: string) => `${shop.origin}${path}`;
  /** The variants table's input for one row ("M") and column, by its accessible name (column and row headers). */
  const cell = (page: Page, row: string, column: "Stock" | "Track stock") =>
    page.getByRole(column === "Track stock" ? "checkbox" : "textbox", { name: `${column} ${row}`, exact: true });
  /** The link in the latest e-mail to `email` with this subject, once it has arrived. */
  const linkIn = async (email: string, subject: string, path: string) => {
    await expect
      .poll(() => catcher.to(email).filter((mail) => mail.subject === subject).length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    const mail = catcher.to(email).findLast((candidate) => candidate.subject === subject)!;
    return mail.links.find((link) => new URL(link).pathname === path) ?? "";
  };

  async function operatorPage(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    return page;
  }

  test("a guest asks to hear about an out-of-stock size, confirms by e-mail, and is told with a link to it when the operator restocks it", async ({
    browser,
  }) => {
    const operator = await operatorPage(browser);
    const picture = await sharp({
      create: { width: 600, height: 600, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer();
    await operator.goto(url("/admin/products/new"));
    await operator.getByLabel("Title").fill(title);
    await operator.getByLabel("Description").fill("A plain red tee.");
    await operator.getByLabel("Price", { exact: true }).fill("18.00");
    await operator.getByLabel("Picture").setInputFiles({ name: "tee.png", mimeType: "image/png", buffer: picture });
    await operator.getByLabel("Option name").first().fill("Size");
    await operator.getByLabel("Option values").first().fill("S, M, L");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
    await cell(operator, "S", "Stock").fill("3");
    for (const size of ["S", "M", "L"]) await cell(operator, size, "Track stock").check();
    await cell(operator, "M", "Stock").fill("0");
    await cell(operator, "L", "Stock").fill("0");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("heading", { name: "Stock movements" })).toBeVisible();
    const editPage = operator.url().replace(/\?.*$/, "");
    productPage = (await operator.getByRole("link", { name: "View on the shop" }).getAttribute("href")) ?? "";

    // A guest chooses M: out of stock, and the form asks for an e-mail.
    const shopper = await browser.newPage();
    await gotoHydrated(shopper, url(productPage));
    await shopper.getByRole("group", { name: "Size" }).getByRole("radio", { name: /^M/ }).check();
    await expect(shopper.getByTestId("availability")).toHaveText("Out of stock");
    await expect(shopper.getByRole("button", { name: "Add to Basket" })).toBeDisabled();
    await expect(shopper.getByLabel("Your e-mail")).toHaveValue("");
    expect(await accessibilityViolations(shopper)).toEqual([]);
    const email = `alert.${Date.now()}.${process.pid}@example.com`;
    await shopper.getByLabel("Your e-mail").fill(email);
    // Answered in place: the page is not loaded again (a mark left on this window survives).
    await shopper.evaluate(() => Object.assign(window, { storyMark: "still here" }));
    await shopper.getByRole("button", { name: "Notify me when available" }).click();
    await expect(
      shopper.getByRole("status").filter({ hasText: "Check your e-mail to confirm your alert." }),
    ).toBeVisible();
    expect(await shopper.evaluate(() => (window as unknown as { storyMark?: string }).storyMark)).toBe("still here");

    // The e-mail's link confirms it.
    await shopper.goto(await linkIn(email, "Confirm your alert", "/stock-alerts/confirm"));
    await expect(shopper.getByText("We'll e-mail you when it's back.")).toBeVisible();

    // The operator puts 4 M on the shelf.
    await gotoHydrated(operator, editPage);
    await cell(operator, "M", "Stock").fill("4");
    await operator.getByRole("button", { name: "Save" }).click();
    await expect(operator.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
    await expect(cell(operator, "M", "Stock")).toHaveValue("4");

    // The alert arrives, and its link opens the M tee, ready to buy.
    const back = await linkIn(email, `Back in stock: ${title} (M)`, productPage);
    expect(new URL(back).searchParams.get("variant")).toBeTruthy();
    await gotoHydrated(shopper, back);
    await expect(shopper.getByRole("group", { name: "Size" }).getByRole("radio", { name: /^M/ })).toBeChecked();
    await expect(shopper.getByTestId("availability")).toHaveText("Only 4 left in stock - order soon.");
    await expect(shopper.getByRole("button", { name: "Add to Basket" })).toBeEnabled();
    await expect(shopper.getByRole("button", { name: "Notify me when available" })).toHaveCount(0);
    // One alert, one e-mail.
    expect(catcher.to(email).map((mail) => mail.subject)).toEqual([
      "Confirm your alert",
      `Back in stock: ${title} (M)`,
    ]);
  });

  test("without JavaScript the form is a plain post: an error under the field, then the answer", async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url(productPage));
    await page.getByRole("group", { name: "Size" }).getByRole("radio", { name: /^L/ }).check();
    await page.getByRole("button", { name: "Choose" }).click();
    await expect(page.getByTestId("availability")).toHaveText("Out of stock");
    await page.getByLabel("Your e-mail").fill("not an address");
    await page.getByRole("button", { name: "Notify me when available" }).click();
    await expect(page.getByText("Enter a valid e-mail address, like name@example.com.")).toBeVisible();
    await expect(page.getByLabel("Your e-mail")).toHaveAttribute("aria-invalid", "true");
    const email = `plain.${Date.now()}.${process.pid}@example.com`;
    await page.getByLabel("Your e-mail").fill(email);
    await page.getByRole("button", { name: "Notify me when available" }).click();
    await expect(page.getByText("Check your e-mail to confirm your alert.")).toBeVisible();
    await expect
      .poll(() => catcher.to(email).map((mail) => mail.subject), { timeout: 20_000 })
      .toEqual(["Confirm your alert"]);
    await context.close();
  });
});
