import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";

const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "purple elephant umbrella";

/**
 * A shopper's account from registration to deletion, on a production server of its own that sends its e-mail to a
 * real SMTP server in this process; the story follows the links in the e-mails it receives.
 */
test.describe("the account's e-mails", () => {
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    // A second production server starting beside the suite's own: on a busy machine that takes longer than a story.
    test.setTimeout(120_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-email-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        LOG_LEVEL: "warn",
      },
      await freePort(),
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  const linkTo = async (email: string, path: string, after = 0) => {
    await expect
      .poll(
        () =>
          catcher
            .to(email)
            .slice(after)
            .flatMap((message) => message.links)
            .filter((link) => new URL(link).pathname === path).length,
      )
      .toBeGreaterThan(0);
    return (
      catcher
        .to(email)
        .slice(after)
        .flatMap((message) => message.links)
        .findLast((link) => new URL(link).pathname === path) ?? ""
    );
  };

  test("a shopper confirms the e-mail, resets a forgotten password from the link, and deletes the account", async ({
    page,
  }) => {
    const email = `story.${Date.now()}.${process.pid}@example.com`;
    await page.goto(`${shop.origin}/login`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create your account" }).click();
    await expect(page.getByText("Please confirm your e-mail")).toBeVisible();

    // The welcome e-mail's link confirms the address; the notice is gone.
    await page.goto(await linkTo(email, "/verify-email"));
    await expect(page.getByRole("heading", { name: "E-mail confirmed" })).toBeVisible();
    await page.goto(`${shop.origin}/`);
    await expect(page.getByRole("banner").getByRole("link", { name: new RegExp(`Hello ${email}`) })).toBeVisible();
    await expect(page.getByText("Please confirm your e-mail")).toHaveCount(0);

    // Signed out, the password forgotten.
    await page
      .getByRole("banner")
      .getByRole("button", { name: /Sign Out/ })
      .click();
    await page.goto(`${shop.origin}/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    // The sign-in page has an "E-mail" field too: fill the one on the page the link opened.
    await expect(page.getByRole("heading", { name: "Password assistance" })).toBeVisible();
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    const before = catcher.to(email).length;
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByText(`If an account exists for ${email}, we have sent a link`)).toBeVisible();
    const reset = await linkTo(email, "/reset-password", before);
    await page.goto(reset);
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Confirm new password").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect(page).toHaveURL(/\/account/);
    await expect(page.getByText("Your new password is set, and you are signed in.")).toBeVisible();
    await expect(page.getByText(`${email}: confirmed`)).toBeVisible();

    // The link worked once.
    await page.goto(reset);
    await expect(page.getByRole("heading", { name: "This link can no longer be used" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Send a new link" })).toHaveAttribute("href", "/forgot-password");

    // Deleting asks for the password; a wrong one is said under the field and in the summary, which takes focus.
    await page.goto(`${shop.origin}/account`);
    await page.getByLabel("Your password, to confirm").fill("not the password");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await expect(page.locator(".form-summary")).toBeFocused();
    await expect(page.locator("#account-delete-password-error")).toHaveText("That is not your current password.");
    await page.getByLabel("Your password, to confirm").fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await expect(page.getByText("Your account has been deleted.")).toBeVisible();
    await expect
      .poll(() => catcher.to(email).map((message) => message.subject))
      .toContain("Your Storefront account was deleted");
  });

  test("the account page fits a 375 px phone without sideways scrolling", async ({ page }) => {
    const email = `phone.${Date.now()}.${process.pid}@example.com`;
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${shop.origin}/login`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create your account" }).click();
    await expect(page.getByText("Please confirm your e-mail")).toBeVisible();
    await page.goto(`${shop.origin}/account`);
    await expect(page.getByRole("heading", { name: "Your Account" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
