import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startSmtpCatcher } from "../../server/testing/smtp-catcher";
import { enterCard } from "./support/card";
import { accessibilityViolations, fillDeliveryAddress } from "./support/delivery";
import { freePort, killShop, startShopProcess, type ShopProcess } from "./support/shop-process";
import { OPERATOR } from "./support/operator";

const BOOK = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const CLERK = "clerk@storefront.test";
const CLERK_PASSWORD = "marble kettle juniper raft";

/**
 * Staff with roles, on a production server of its own with a real SMTP server in this process: the Owner invites a
 * Staff member with Orders only, who reads the invitation, sets a password from its link, sees only Orders, ships an
 * order, and gets 404 on Refund and on Products; then "Remove access" ends their open session.
 */
test.describe("staff accounts", () => {
  test.describe.configure({ mode: "serial", timeout: 150_000 });
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let shop: ShopProcess;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    catcher = await startSmtpCatcher();
    shop = await startShopProcess(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), "storefront-staff-")),
        SMTP_URL: catcher.url,
        MAIL_FROM: "Storefront <orders@shop.test>",
        OPERATOR_EMAIL: OPERATOR.email,
        OPERATOR_PASSWORD: OPERATOR.password,
        AUTH_ATTEMPTS_PER_IP: "10000",
        NEW_SESSIONS_PER_IP: "100000",
        PAYMENT_ATTEMPTS_PER_IP: "100000",
      },
      process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 4 : await freePort(),
      200_000,
    );
  });
  test.afterAll(async () => {
    if (shop) await killShop(shop, "SIGTERM");
    await catcher?.stop();
  });

  const url = (path: string) => `${shop.origin}${path}`;

  async function signedInOwner(browser: Browser): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url("/login"));
    await page.getByLabel("E-mail", { exact: true }).fill(OPERATOR.email);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page).toHaveURL(url("/"));
    return page;
  }

  async function guestBuysTheBook(page: Page): Promise<string> {
    await page.goto(url("/"));
    await page.getByRole("article", { name: BOOK, exact: true }).getByRole("button", { name: "Add to Basket" }).click();
    const basket = page.getByRole("banner").getByRole("link", { name: /^Basket,/ });
    await expect(basket).toHaveAccessibleName("Basket, 1 item");
    // Saved, not only shown: the checkout page reads the basket from the server.
    await expect(basket).toHaveAttribute("aria-busy", "false");
    await page.goto(url("/checkout"));
    await page.getByRole("link", { name: "Proceed to Checkout" }).click();
    await fillDeliveryAddress(page, { email: `buyer.${Date.now()}@example.com` });
    await enterCard(page, "4242424242424242");
    await page.getByRole("button", { name: "Buy Now" }).click();
    await expect(page).toHaveURL(/\/orders\?placed=SF-\d{4}-[A-Z0-9]{4}$/);
    return new URL(page.url()).searchParams.get("placed") ?? "";
  }

  test("an Owner invites Staff with Orders only: the invitation sets a password, they ship an order, Refund and Products are 404, and Remove access ends their session", async ({
    browser,
  }) => {
    const number = await guestBuysTheBook(await browser.newPage());

    // The Owner invites the clerk from /admin/staff (its former address leads there).
    const owner = await signedInOwner(browser);
    await owner.goto(url("/admin/operators"));
    await expect(owner).toHaveURL(url("/admin/staff"));
    await expect(owner.getByRole("heading", { level: 1, name: "Staff" })).toBeVisible();
    const invite = owner.locator("form", { has: owner.getByRole("button", { name: "Invite staff" }) });
    await invite.getByLabel("E-mail", { exact: true }).fill(CLERK);
    await invite.getByLabel("Role").selectOption("staff");
    // Staff with no area is refused, saying so.
    await invite.getByRole("button", { name: "Invite staff" }).click();
    await expect(owner.getByText("Tick at least one area for Staff.").first()).toBeVisible();
    await expect(invite.getByLabel("E-mail", { exact: true })).toHaveValue(CLERK);
    await invite.getByLabel("Orders and returns").check();
    await invite.getByRole("button", { name: "Invite staff" }).click();
    await expect(owner.getByRole("status")).toHaveText(`An invitation was sent to ${CLERK}.`);
    const member = owner.getByRole("region", { name: CLERK });
    await expect(member.getByText("Staff: Orders and returns · invitation sent, no password set yet")).toBeVisible();
    expect(await accessibilityViolations(owner)).toEqual([]);

    // The invitation, as the SMTP server received it.
    await expect
      .poll(() => catcher.to(CLERK)[0]?.subject, { timeout: 30_000 })
      .toBe("You are invited to run Storefront");
    const mail = catcher.to(CLERK)[0]!;
    expect(mail.body).toContain(`${OPERATOR.email} has invited you to the shop's console as Staff.`);
    const link = mail.links.find((address) => address.includes("/staff-invitation?token="));
    expect(link).toBeTruthy();

    // The clerk sets a password from the link and lands on the orders, the only section they have.
    const clerkContext = await browser.newContext();
    const clerk = await clerkContext.newPage();
    await clerk.goto(link!);
    await expect(clerk.getByRole("heading", { name: "Set your password" })).toBeVisible();
    await clerk.getByLabel("Password", { exact: true }).fill(CLERK_PASSWORD);
    await clerk.getByLabel("Confirm password").fill(CLERK_PASSWORD);
    await clerk.getByRole("button", { name: "Set password" }).click();
    await expect(clerk).toHaveURL(url("/admin/orders"));
    const nav = clerk.getByRole("navigation", { name: "Console" });
    // The Orders area is "Orders and returns": its member runs returns too.
    await expect(nav.getByRole("link")).toHaveText(["Orders", "Returns"]);

    // The link works once.
    const again = await clerkContext.newPage();
    await again.goto(link!);
    await expect(again.getByRole("heading", { name: "This link can no longer be used" })).toBeVisible();
    await again.close();

    // They ship the order.
    await clerk.goto(url(`/admin/orders/${number}`));
    await clerk.getByLabel("Carrier").fill("UPS");
    await clerk.getByLabel("Tracking number").fill("1Z999AA10123456784");
    await clerk.getByRole("button", { name: "Mark as shipped" }).click();
    await expect(clerk.getByRole("status").filter({ hasText: "Marked as shipped." })).toBeVisible();
    await expect(clerk.getByRole("cell", { name: CLERK }).first()).toBeVisible();
    // No Refund form is drawn for them, and the refund itself, posted anyway, is 404.
    await expect(clerk.getByRole("button", { name: "Refund", exact: true })).toHaveCount(0);
    const refund = await clerk.request.post(url(`/admin/orders/${number}`), {
      form: { intent: "refund", amount: "5.00", key: crypto.randomUUID(), confirmed: "yes" },
      headers: { origin: shop.origin },
      maxRedirects: 0,
    });
    expect(refund.status()).toBe(404);
    // Products is not theirs either.
    const products = await clerk.goto(url("/admin/products"));
    expect(products?.status()).toBe(404);

    // The Owner sees who did what in the audit log.
    await owner.goto(url("/admin/audit"));
    await expect(
      owner.getByRole("row").filter({ hasText: "staff.invite" }).filter({ hasText: OPERATOR.email }),
    ).toHaveCount(1);
    await expect(owner.getByRole("row").filter({ hasText: "staff.join" }).filter({ hasText: CLERK })).toHaveCount(1);

    // "Remove access" ends the clerk's open session: their next request finds them signed out.
    await owner.goto(url("/admin/staff"));
    await owner.getByRole("button", { name: `Remove access for ${CLERK}` }).click();
    await expect(owner.getByRole("status")).toHaveText(`${CLERK} no longer has access, and was signed out everywhere.`);
    await expect(owner.getByRole("region", { name: CLERK })).toHaveCount(0);
    const after = await clerk.goto(url("/admin/orders"));
    expect(after?.status()).toBe(404);
    await expect(clerk.getByRole("heading", { name: "Page not found" })).toBeVisible();
    await expect(clerk.getByRole("banner").getByText("Hello Guest")).toBeVisible();

    // The staff page at a phone's width and a desktop's.
    for (const width of [390, 1280]) {
      await owner.setViewportSize({ width, height: 900 });
      await owner.goto(url("/admin/staff"));
      await owner
        .locator("details")
        .first()
        .evaluate((details) => details.setAttribute("open", ""));
      const overflow = await owner.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      await owner.screenshot({ path: test.info().outputPath(`staff-${width}.png`), fullPage: true });
      expect(overflow, `${width} px`).toBeLessThanOrEqual(0);
    }
  });
});
