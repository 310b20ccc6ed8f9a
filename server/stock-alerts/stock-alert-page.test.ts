import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const PASSWORD = "correct horse battery";
const BOOK_PAGE = "/products/the-lean-startup";
let counter = 0;
const unique = (label: string) => `${label}${Date.now()}${++counter}`;
const uniqueEmail = () => `${unique("shopper")}@example.com`;

/**
 * "Notify me when available" on the product page as a browser without JavaScript posts it: offered on an
 * out-of-stock variant only, filled in for a signed-in shopper, answered on the page, bad input told under the field
 * with nothing written, and the "Confirm your alert" e-mail's link (from a real SMTP server) confirming it.
 */
describeEachDatabase("the product page's stock alert form", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  type Browser = ReturnType<typeof createBrowser>;

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createPageShop(getDatabase(), { smtp: { url: catcher.url, from: "orders@shop.test" } });
  }, 120_000);
  afterAll(async () => {
    await shop.close();
    await catcher.stop();
  });

  const db = () => getDatabase().db;
  /** A page's HTML with React's text separators and escaped apostrophes undone, as a reader sees the words. */
  const html = async (response: Response) => (await response.text()).replace(/<!-- -->/g, "").replace(/&#x27;/g, "'");
  const page = async (browser: Browser, path: string) => {
    const response = await browser.send(path, { headers: { accept: "text/html" } });
    expect(response.status, path).toBe(200);
    return html(response);
  };
  const post = (browser: Browser, path: string, fields: Record<string, string>) =>
    browser.postForm(path, fields, { accept: "text/html", origin: "http://shop.test" });
  const alertsOf = (email: string) =>
    db().selectFrom("stock_alerts").select(["variant_id", "confirmed_at"]).where("email", "=", email).execute();

  /** "Plain Tee" in S (3 on hand) and M (none), each tracking stock. */
  async function createTee() {
    const id = unique("tee-");
    await db()
      .insertInto("products")
      .values({
        id,
        slug: id,
        title: "Plain Tee",
        price_cents: 1500,
        rating: 4,
        image: "/images/products/12321341.webp",
        image_width: 400,
        image_height: 400,
        featured_position: null,
      })
      .execute();
    await db()
      .insertInto("product_options")
      .values({ product_id: id, position: 1, name: "Size", values: JSON.stringify(["S", "M"]) })
      .execute();
    await db().deleteFrom("product_variants").where("product_id", "=", id).execute();
    const variant = (size: string, position: number) => ({
      id: `${id}-${size.toLowerCase()}`,
      product_id: id,
      position,
      option_values: JSON.stringify([size]),
      price_cents: 1500,
      sku: null,
      compare_at_cents: null,
      image: null,
      image_width: null,
      image_height: null,
      image_srcset: null,
    });
    await db()
      .insertInto("product_variants")
      .values([variant("S", 1), variant("M", 2)])
      .execute();
    const setStock = (variantId: string, onHand: number) =>
      shop.services.inventory.setStock(db(), variantId, { tracksStock: true, continueSelling: false, onHand }, "test");
    await setStock(`${id}-s`, 3);
    await setStock(`${id}-m`, 0);
    const path = `/products/${id}`;
    return {
      id,
      small: `${id}-s`,
      medium: `${id}-m`,
      mediumPage: `${path}?variant=${id}-m`,
      smallPage: `${path}?variant=${id}-s`,
    };
  }

  async function account({ isConfirmed }: { isConfirmed: boolean }) {
    const email = uniqueEmail();
    const browser = createBrowser(shop.app);
    expect((await post(browser, "/login", { intent: "register", email, password: PASSWORD })).status).toBe(302);
    if (isConfirmed)
      await db().updateTable("users").set({ email_verified_at: new Date() }).where("email", "=", email).execute();
    return { browser, email };
  }

  it("offers the form on an out-of-stock variant only; a guest confirms by e-mail, whose link says the alert is kept", async () => {
    const tee = await createTee();
    const guest = createBrowser(shop.app);
    expect(await page(guest, tee.smallPage)).not.toContain("Notify me when available");
    expect(await page(guest, BOOK_PAGE)).not.toContain("Notify me when available");
    const form = await page(guest, tee.mediumPage);
    expect(form).toContain("Notify me when available");
    expect(form).toMatch(/<input id="stock-alert-email" type="email"[^>]*value=""/);

    const email = uniqueEmail();
    const answered = await post(guest, tee.mediumPage, { intent: "stock-alert", variantId: tee.medium, email });
    expect(answered.status).toBe(200);
    expect(await html(answered)).toContain("Check your e-mail to confirm your alert.");
    expect(await alertsOf(email)).toEqual([{ variant_id: tee.medium, confirmed_at: null }]);

    await shop.emailSender.deliverDue();
    const [mail] = catcher.to(email);
    expect(mail!.subject).toBe("Confirm your alert");
    expect(mail!.body).toContain("Plain Tee (M)");
    const link = new URL(mail!.links.find((candidate) => new URL(candidate).pathname === "/stock-alerts/confirm")!);
    expect(await page(guest, link.pathname + link.search)).toContain("We'll e-mail you when it's back.");
    expect(await alertsOf(email)).toEqual([{ variant_id: tee.medium, confirmed_at: expect.any(Date) }]);
  });

  it("fills in a signed-in shopper's address and subscribes a confirmed one at once, with no e-mail", async () => {
    const tee = await createTee();
    const { browser, email } = await account({ isConfirmed: true });
    expect(await page(browser, tee.mediumPage)).toMatch(
      new RegExp(`<input id="stock-alert-email" type="email"[^>]*value="${email}"`),
    );
    const answered = await post(browser, tee.mediumPage, {
      intent: "stock-alert",
      variantId: tee.medium,
      email: email.toUpperCase(),
    });
    expect(await html(answered)).toContain("We'll e-mail you when it's back.");
    expect(await alertsOf(email)).toEqual([{ variant_id: tee.medium, confirmed_at: expect.any(Date) }]);
    await shop.emailSender.deliverDue();
    // The welcome e-mail of registering, and nothing about the alert.
    expect(catcher.to(email).map((mail) => mail.subject)).not.toContain("Confirm your alert");
    expect(catcher.to(email)).toHaveLength(1);

    // Not yet confirmed: the shopper is asked to confirm like anybody else.
    const unconfirmed = await account({ isConfirmed: false });
    const asked = await post(unconfirmed.browser, tee.mediumPage, {
      intent: "stock-alert",
      variantId: tee.medium,
      email: unconfirmed.email,
    });
    expect(await html(asked)).toContain("Check your e-mail to confirm your alert.");
  });

  it("answers bad input under the field and writes nothing", async () => {
    const tee = await createTee();
    const other = await createTee();
    const guest = createBrowser(shop.app);
    const email = uniqueEmail();
    const cases: [Record<string, string>, number, string][] = [
      [{ variantId: tee.medium, email: "" }, 400, "Enter your e-mail address."],
      [{ variantId: tee.medium, email: "not an address" }, 400, "Enter a valid e-mail address, like name@example.com."],
      [
        { variantId: tee.medium, email: `${"a".repeat(250)}@example.com` },
        400,
        "An e-mail address is at most 254 characters.",
      ],
      [{ variantId: "", email }, 400, "This item is not sold here. Please choose it again on its page."],
      [{ variantId: "x".repeat(101), email }, 400, "This item is not sold here. Please choose it again on its page."],
      [{ variantId: other.medium, email }, 404, "This item is not sold here. Please choose it again on its page."],
      [{ variantId: tee.small, email }, 409, "It's back in stock: you can add it to your basket now."],
      [{ variantId: tee.medium, email, colour: "red" }, 400, "Please check the form and try again."],
    ];
    for (const [fields, status, message] of cases) {
      // Posted from the page that showed the variant (the one back in stock meanwhile from its own).
      const response = await post(guest, fields.variantId === tee.small ? tee.smallPage : tee.mediumPage, {
        intent: "stock-alert",
        ...fields,
      });
      expect(response.status, JSON.stringify(fields).slice(0, 80)).toBe(status);
      expect(await html(response)).toContain(
        `<p id="stock-alert-email-error" class="field-error stock-alert__error">${message}</p>`,
      );
    }
    expect(
      await db()
        .selectFrom("stock_alerts")
        .select("id")
        .where("variant_id", "in", [tee.medium, tee.small, other.medium])
        .execute(),
    ).toEqual([]);
    expect(await alertsOf(email)).toEqual([]);
  });
});
