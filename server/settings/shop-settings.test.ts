import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { credentialsSchema } from "#shared/account";
import { createPageShop } from "#server/testing/page-shop";
import { startSmtpCatcher } from "#server/testing/smtp-catcher";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase, withTwoInstances } from "#server/testing/test-database";

const OPERATOR = "owner@settings.test";
const SHOPPER = "shopper@settings.test";
const PASSWORD = "violet tractor harbour pickle";
const MAIL_FROM = "Storefront <orders@shop.test>";

type Browser = ReturnType<typeof createBrowser>;

/** Every field of the settings form, as the console sends it, with these changes and this logo (or none chosen). */
function settingsForm(fields: Record<string, string> = {}, logo?: { bytes: Uint8Array; name: string; type: string }) {
  const form = new FormData();
  for (const [name, value] of Object.entries({
    shopName: "",
    supportEmail: "",
    emailFromName: "",
    postalAddress: "",
    returnAddress: "",
    returnWindowDays: "30",
    returnFee: "0.00",
    timeZone: "UTC",
    conditionsText: "",
    privacyText: "",
    returnsText: "",
    ...fields,
  }))
    form.set(name, value);
  form.set(
    "logo",
    logo
      ? new File([new Uint8Array(logo.bytes)], logo.name, { type: logo.type })
      : new File([], "", { type: "application/octet-stream" }),
  );
  return form;
}

const SAVED = {
  shopName: "Lamplight Books",
  supportEmail: "Help@Lamplight.test",
  emailFromName: "Lamplight Orders",
  postalAddress: "12 Harbour Street\nPortland, ME 04101",
  returnAddress: "Lamplight Returns\n40 Dock Road\nPortland, ME 04102",
  returnWindowDays: "14",
  returnFee: "4.99",
  timeZone: "America/New_York",
  returnsText: "Send it back within the window.\n\n# Gifts\nA gift can be returned by whoever received it.",
};

/**
 * The shop's own settings, end to end: saved in the console (/admin/settings), then read by every page (header,
 * titles, JSON-LD, the legal pages and their footer), the e-mails at a real SMTP server, the dashboard; refused input
 * changing nothing.
 */
describeEachDatabase("the shop's own settings", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  let catcher: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let running: { port: number; close: () => Promise<void> };
  let guest: Browser;
  let operator: Browser;
  let logo: Buffer;

  const html = (browser: Browser, path: string, init: RequestInit = {}) =>
    browser.send(path, {
      ...init,
      headers: { accept: "text/html", origin: "http://shop.test", ...Object.fromEntries(new Headers(init.headers)) },
    });
  const save = (browser: Browser, form: FormData) => html(browser, "/admin/settings", { method: "POST", body: form });
  const auditEntries = async () =>
    Number(
      (
        await getDatabase()
          .db.selectFrom("audit_log")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("action", "=", "settings.update")
          .executeTakeFirstOrThrow()
      ).n,
    );
  const settingsRow = () => getDatabase().db.selectFrom("shop_settings").selectAll().executeTakeFirstOrThrow();

  async function signedIn(email: string, intent: "sign-in" | "register") {
    const browser = createBrowser(shop.app);
    const response = await html(browser, "/login", {
      method: "POST",
      body: new URLSearchParams({ intent, email, password: PASSWORD }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status, `${intent} ${email}`).toBe(302);
    return browser;
  }

  beforeAll(async () => {
    catcher = await startSmtpCatcher();
    shop = await createPageShop(getDatabase(), {
      operator: { email: OPERATOR, password: PASSWORD },
      smtp: { url: catcher.url, from: MAIL_FROM },
      emailSender: { pollIntervalMs: 50, retryBaseMs: 200, leaseMs: 2_000 },
      shopTimeZone: "Europe/Paris",
    });
    // Listening starts the outbox's sender, which delivers to the catcher.
    running = await shop.listen(0);
    guest = createBrowser(shop.app);
    operator = await signedIn(OPERATOR, "sign-in");
    logo = await sharp({ create: { width: 300, height: 100, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer();
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await shop?.close();
    await catcher?.stop();
  });

  it("a shop that set nothing reads Storefront, and its legal pages speak to shoppers, linked from every page's footer", async () => {
    const home = await (await html(guest, "/")).text();
    expect(home).toContain("<title>Storefront: books, kitchen, monitors and more</title>");
    expect(home).toContain('aria-label="Storefront home"');
    for (const [path, title] of [
      ["/conditions", "Conditions of Use"],
      ["/privacy", "Privacy Notice"],
      ["/returns", "Returns"],
    ] as const) {
      expect(home).toContain(`<a href="${path}"`);
      const response = await html(guest, path);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain(`<title>${title} | Storefront</title>`);
      expect(page).toContain(`<h1>${title}</h1>`);
      expect(page).not.toMatch(/\.txt|app\/content|in one file|operator edits/);
      // The footer is on every shop page, the legal pages included.
      expect(page).toContain('<a href="/returns"');
    }
    const returns = await (await html(guest, "/returns")).text();
    expect(returns).toContain("30 days from delivery");
    expect(returns).toMatch(/Return fee<\/dt><dd>Free/);
    const form = await (await html(operator, "/admin/settings")).text();
    // The time zone follows SHOP_TIME_ZONE until one is saved.
    expect(form).toContain('value="Europe/Paris"');
    expect((await shop.services.salesDashboard.getDashboard({ period: "today" })).timeZone).toBe("Europe/Paris");
  });

  it("refuses a logo that is not a picture or too big, an unknown time zone and an over-long text, each with its sentence, changing nothing", async () => {
    const before = await settingsRow();
    const entries = await auditEntries();
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" height="9"/></svg>');
    const big = new Uint8Array(1024 * 1024 + 1);
    big.set(logo);
    const cases: [FormData, string][] = [
      [
        settingsForm(SAVED, { bytes: svg, name: "logo.svg", type: "image/svg+xml" }),
        "The logo must be a JPEG, PNG or WebP file.",
      ],
      [
        settingsForm(SAVED, { bytes: new TextEncoder().encode("hello"), name: "logo.png", type: "image/png" }),
        "The logo must be a JPEG, PNG or WebP file.",
      ],
      [settingsForm(SAVED, { bytes: big, name: "logo.png", type: "image/png" }), "The logo is larger than 1 MB."],
      [
        settingsForm({ ...SAVED, timeZone: "Mars/Olympus_Mons" }),
        "Unknown time zone. Enter one such as America/New_York or Europe/Paris.",
      ],
      [settingsForm({ ...SAVED, privacyText: "x".repeat(20_001) }), "The text is at most 20,000 characters."],
      [settingsForm({ ...SAVED, shopName: "n".repeat(81) }), "A shop name is at most 80 characters."],
      [settingsForm({ ...SAVED, returnWindowDays: "-3" }), "Enter a number of days from 0 to 365."],
      [
        settingsForm({ ...SAVED, returnFee: "free" }),
        "Enter a fee in dollars and cents from 0.00 to 1,000.00, like 4.99.",
      ],
      [settingsForm({ ...SAVED, supportEmail: "not an address" }), "Enter an e-mail address, like help@shop.example."],
      [settingsForm({ ...SAVED, surprise: "field" }), "The form was not understood. Reload the page and try again."],
    ];
    for (const [form, sentence] of cases) {
      const response = await save(operator, form);
      expect(response.status, sentence).toBe(400);
      const page = await response.text();
      expect(page).toContain(sentence);
      // What was typed is kept for the next try.
      if (form.get("shopName") === SAVED.shopName) expect(page, sentence).toContain('value="Lamplight Books"');
    }
    expect(await settingsRow()).toEqual(before);
    expect(await auditEntries()).toBe(entries);
    // Nobody but an operator finds the page, or can post to it.
    const shopper = await signedIn(SHOPPER, "register");
    expect((await html(shopper, "/admin/settings")).status).toBe(404);
    expect((await save(shopper, settingsForm(SAVED))).status).toBe(404);
    expect((await save(guest, settingsForm(SAVED))).status).toBe(404);
    expect(await settingsRow()).toEqual(before);
  });

  it("a saved name and logo are in the header, titles, JSON-LD and e-mails; return terms and texts on their pages; one audit entry", async () => {
    // A guest's home page kept before the save must not outlive it.
    expect(await (await html(guest, "/")).text()).toContain("Storefront: books");
    const entries = await auditEntries();
    const saved = await save(operator, settingsForm(SAVED, { bytes: logo, name: "logo.png", type: "image/png" }));
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain("Settings saved.");
    expect(await auditEntries()).toBe(entries + 1);
    const entry = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["operator_email", "subject", "after"])
      .where("action", "=", "settings.update")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ operator_email: OPERATOR, subject: "Shop settings" });
    expect(entry.after).toMatchObject({
      shopName: "Lamplight Books",
      timeZone: "America/New_York",
      returnFeeCents: 499,
    });

    const home = await (await html(guest, "/")).text();
    expect(home).toContain("<title>Lamplight Books: books, kitchen, monitors and more</title>");
    expect(home).toContain('aria-label="Lamplight Books home"');
    const logoSrc = /class="site-header__logo-picture" src="(\/pictures\/[a-f0-9]{32}\.webp)"/.exec(home)?.[1];
    expect(logoSrc).toBeDefined();
    const picture = await html(guest, logoSrc!);
    expect(picture.status).toBe(200);
    expect(picture.headers.get("content-type")).toBe("image/webp");
    // A mail client shows it from an origin of its own; the shop's pages stay same-origin.
    expect(picture.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect((await html(guest, "/")).headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(home).toContain("© Lamplight Books");
    expect(home).toMatch(/Contact us: <a href="mailto:help@lamplight\.test">help@lamplight\.test<\/a>/i);

    const product = await (await html(guest, "/products/the-lean-startup")).text();
    expect(product).toMatch(/<title>The Lean Startup[^<]* \| Lamplight Books<\/title>/);
    expect(product).toContain('"seller":{"@type":"Organization","name":"Lamplight Books"}');

    const returns = await (await html(guest, "/returns")).text();
    expect(returns).toContain("<title>Returns | Lamplight Books</title>");
    expect(returns).toContain("14 days from delivery");
    expect(returns).toMatch(/Return fee<\/dt><dd>\$4\.99/);
    expect(returns).toContain("40 Dock Road");
    expect(returns).toContain("<h2>Gifts</h2>");
    expect(returns).toContain("<p>A gift can be returned by whoever received it.</p>");
    // A text left empty is the default again.
    expect(await (await html(guest, "/privacy")).text()).toContain("What we keep");
    // The console's bar and an authenticator app name the shop too.
    expect(await (await html(operator, "/admin")).text()).toContain("Lamplight Books console");
    const owner = await getDatabase()
      .db.selectFrom("users")
      .select("id")
      .where("email", "=", OPERATOR)
      .executeTakeFirstOrThrow();
    await shop.services.twoStep.beginSetup(owner.id);
    const { pending } = await shop.services.twoStep.getStatus(owner.id, OPERATOR);
    expect(new URL(pending!.uri).searchParams.get("issuer")).toBe("Lamplight Books");

    expect((await shop.services.salesDashboard.getDashboard({ period: "today" })).timeZone).toBe("America/New_York");
    expect(await shop.services.settings.returnPolicy()).toEqual({
      address: "Lamplight Returns\n40 Dock Road\nPortland, ME 04102",
      windowDays: 14,
      feeCents: 499,
    });

    // An e-mail written now, read at the SMTP server: the new name, sender name, logo by its address, postal address.
    const email = `reader${Date.now()}@settings.test`;
    await shop.services.signInFlow.signIn(credentialsSchema.parse({ intent: "register", email, password: PASSWORD }), {
      ip: "10.8.0.1",
      current: null,
    });
    await expect.poll(() => catcher.to(email).length, { timeout: 10_000 }).toBe(1);
    const [welcome] = catcher.to(email);
    expect(welcome?.subject).toBe("Welcome to Lamplight Books: please confirm your e-mail");
    expect(welcome?.header("From")).toBe("Lamplight Orders <orders@shop.test>");
    // A reply reaches the shop's support address, not MAIL_FROM's box.
    expect(welcome?.header("Reply-To")?.toLowerCase()).toBe("help@lamplight.test");
    expect(welcome?.body).toContain(`src="http://localhost:${running.port}${logoSrc}"`);
    expect(welcome?.body).toContain('alt="Lamplight Books"');
    expect(welcome?.body).toContain("12 Harbour Street");

    // The logo stays when the form is saved without a file, and goes with "Remove the logo".
    expect((await save(operator, settingsForm(SAVED))).status).toBe(200);
    expect(await (await html(guest, "/")).text()).toContain(logoSrc!);
    const removed = await save(operator, settingsForm({ ...SAVED, removeLogo: "on" }));
    expect(removed.status, /<main[\s\S]*<\/main>/.exec(await removed.clone().text())?.[0]).toBe(200);
    expect((await settingsRow()).logo_src).toBeNull();
    const without = await (await html(guest, "/")).text();
    expect(without).not.toContain('class="site-header__logo-picture"');
    expect(without).toContain('<span class="site-header__shop-name">Lamplight Books</span>');
  });
});

it.runIf(process.env.TEST_DATABASE_URL)(
  "two instances on one PostgreSQL: a setting saved through one is on the other's guest pages within a few seconds",
  () =>
    withTwoInstances("settings", async (databases) => {
      const first = await createPageShop(databases[0], { operator: { email: OPERATOR, password: PASSWORD } });
      const second = await createPageShop(databases[1]);
      try {
        const guestOf = (app: typeof first.app) => (path: string) =>
          app.request(`http://shop.test${path}`, { headers: { host: "shop.test", accept: "text/html" } });
        const onSecond = guestOf(second.app);
        // Kept by the second instance's guest page cache.
        expect(await (await onSecond("/")).text()).toContain("<title>Storefront: books");
        expect(await (await onSecond("/")).text()).toContain("<title>Storefront: books");
        const operator = createBrowser(first.app);
        const signIn = await operator.send("/login", {
          method: "POST",
          body: new URLSearchParams({ intent: "sign-in", email: OPERATOR, password: PASSWORD }),
          headers: {
            accept: "text/html",
            origin: "http://shop.test",
            "content-type": "application/x-www-form-urlencoded",
          },
        });
        expect(signIn.status).toBe(302);
        const saved = await operator.send("/admin/settings", {
          method: "POST",
          body: settingsForm({ shopName: "Harbour Lights" }),
          headers: { accept: "text/html", origin: "http://shop.test" },
        });
        expect(saved.status).toBe(200);
        const savedAt = Date.now();
        await expect
          .poll(async () => (await (await onSecond("/")).text()).includes("<title>Harbour Lights: books"), {
            timeout: 5_000,
            interval: 100,
          })
          .toBe(true);
        expect(Date.now() - savedAt).toBeLessThan(3_000);
        expect(await (await onSecond("/returns")).text()).toContain("<title>Returns | Harbour Lights</title>");
      } finally {
        await first.close();
        await second.close();
      }
    }),
  120_000,
);
