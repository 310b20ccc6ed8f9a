import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import sharp from "sharp";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { OPERATOR } from "./support/operator";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";

const PASSWORD = "correct horse battery";

/**
 * The shop's own settings on a production server of its own (its name must not reach the other stories), with a real
 * SMTP server in this process: the operator names the shop and gives it a logo in the console; the header, the page
 * title and the footer's legal pages show them, and a shopper's welcome e-mail, read at the SMTP server and opened
 * as a mail client opens it, carries the name, the sender name and the logo.
 */
test.describe("the shop's own settings", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-settings-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
      },
      process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 7 : await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  const url = (path: string) => `${shop.origin}${path}`;

  /** Fails the story on any Content-Security-Policy violation the page reports. */
  async function watchPolicy(page: Page): Promise<string[]> {
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (text: string) => violations.push(text));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) =>
        (window as unknown as { reportViolation: (text: string) => void }).reportViolation(
          `${event.violatedDirective} ${event.blockedURI}`,
        ),
      );
    });
    return violations;
  }

  test("the operator names the shop and gives it a logo; the header, titles, legal pages and a welcome e-mail show them", async ({
    page,
    browser,
  }, testInfo) => {
    await page.goto(url("/"));
    await expect(page).toHaveTitle(/^Storefront: /);
    await expect(page.getByRole("banner").getByRole("link", { name: "Storefront home" })).toBeVisible();

    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    await page.goto(url("/admin"));
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Settings" }).click();
    await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
    await expect(page.getByLabel("Time zone")).toHaveValue("UTC");
    await expect(page.getByLabel("Return window (days)")).toHaveValue("30");
    await expect(page.getByLabel("Return fee ($)")).toHaveValue("0.00");

    // A file that is not a picture is refused under its field, and nothing changes.
    await page.getByLabel("Shop name").fill("Lamplight Books");
    await page.getByLabel("Logo").setInputFiles({
      name: "logo.svg",
      mimeType: "image/svg+xml",
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" height="9"/></svg>'),
    });
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.locator("#field-logo-error")).toHaveText("The logo must be a JPEG, PNG or WebP file.");
    await expect(page.getByLabel("Shop name")).toHaveValue("Lamplight Books");

    const logo = await sharp({
      create: { width: 360, height: 120, channels: 3, background: { r: 180, g: 30, b: 60 } },
    })
      .png()
      .toBuffer();
    await page.getByLabel("Logo").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logo });
    await page.getByLabel("E-mail sender name").fill("Lamplight Orders");
    await page.getByLabel("Postal address").fill("12 Harbour Street\nPortland, ME 04101");
    await page.getByLabel("Return window (days)").fill("14");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    await expect(page.getByRole("img", { name: "The current logo" })).toBeVisible();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: testInfo.outputPath(`settings-${width}.png`), fullPage: true });
    }

    // A guest sees the new name and logo in the header and the title, and the footer's legal pages.
    // The shop's pages, the logo included, load nothing their policy refuses.
    const guest = await browser.newPage();
    const guestViolations = await watchPolicy(guest);
    await guest.goto(url("/"));
    await expect(guest).toHaveTitle("Lamplight Books: books, kitchen, monitors and more");
    const home = guest.getByRole("banner").getByRole("link", { name: "Lamplight Books home" });
    await expect(home).toBeVisible();
    await expect
      .poll(() => home.locator("img").evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBeGreaterThan(0);
    await expect(guest.getByRole("searchbox", { name: "Search Lamplight Books" })).toBeVisible();
    for (const width of [390, 1280]) {
      await guest.setViewportSize({ width, height: 900 });
      await guest.screenshot({ path: testInfo.outputPath(`home-${width}.png`) });
    }
    const footer = guest.getByRole("contentinfo");
    await footer.getByRole("link", { name: "Returns" }).click();
    await expect(guest.getByRole("heading", { name: "Returns", level: 1 })).toBeVisible();
    await expect(guest).toHaveTitle("Returns | Lamplight Books");
    await expect(guest.getByText("14 days from delivery")).toBeVisible();
    await guest.screenshot({ path: testInfo.outputPath("returns-1280.png"), fullPage: true });
    await footer.getByRole("link", { name: "Conditions of Use" }).click();
    await expect(guest.getByRole("heading", { name: "Conditions of Use", level: 1 })).toBeVisible();
    await footer.getByRole("link", { name: "Privacy Notice" }).click();
    await expect(guest.getByRole("heading", { name: "Privacy Notice", level: 1 })).toBeVisible();
    await expect(guest.locator("main")).not.toContainText(/\.txt|app\/content|file/);

    // A shopper registers; the welcome e-mail at the SMTP server names the shop, comes from its sender name and
    // shows its logo, from the shop's own address, as a mail client shows it.
    const email = `settings.${Date.now()}.${process.pid}@example.com`;
    await guest.goto(url("/login"));
    await guest.getByLabel("E-mail", { exact: true }).fill(email);
    await guest.getByLabel("Password").fill(PASSWORD);
    await guest.getByRole("button", { name: "Create your account" }).click();
    await expect.poll(() => catcher.to(email).length, { timeout: 15_000 }).toBe(1);
    const [welcome] = catcher.to(email);
    expect(welcome?.subject).toBe("Welcome to Lamplight Books: please confirm your e-mail");
    expect(welcome?.header("From")).toBe("Lamplight Orders <orders@shop.test>");
    const html = /<!DOCTYPE html>[\s\S]*<\/html>/i.exec(welcome?.body ?? "")?.[0] ?? "";
    expect(html).toContain("12 Harbour Street");
    const reader = await browser.newPage();
    await reader.setContent(html);
    const logoInEmail = reader.getByRole("img", { name: "Lamplight Books" });
    await expect(logoInEmail).toHaveAttribute("src", new RegExp(`^${shop.origin}/pictures/[a-f0-9]{32}\\.webp$`));
    await expect
      .poll(() => logoInEmail.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBeGreaterThan(0);
    await reader.screenshot({ path: testInfo.outputPath("email.png") });
    expect(guestViolations).toEqual([]);
  });
});
