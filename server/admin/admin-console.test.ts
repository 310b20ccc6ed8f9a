import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { openReturn } from "#server/returns/open-return";

const OPERATOR = "owner@console.test";
const SHOPPER = "shopper@console.test";
const PASSWORD = "violet tractor harbour pickle";
const BOOK = "12321341";
const ORDER_NUMBER = "SF-2611-CT7Q";

/**
 * The console as a browser meets it, pages rendered by React Router as in production: hidden from everyone but an
 * operator, route by route from the route table, and its product form (multipart, with a picture) end to end.
 */
describeEachDatabase("the operator console", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  type Browser = ReturnType<typeof createBrowser>;
  let guest: Browser;
  let shopper: Browser;
  let operator: Browser;

  const html = (browser: Browser, path: string, init: RequestInit = {}) =>
    browser.send(path, {
      ...init,
      headers: { accept: "text/html", origin: "http://shop.test", ...Object.fromEntries(new Headers(init.headers)) },
    });
  const mainText = (page: string) =>
    /<main[^>]*>([\s\S]*?)<\/main>/
      .exec(page)?.[1]
      ?.replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  const count = async (table: "products" | "audit_log" | "operators" | "pictures") =>
    Number(
      (
        await getDatabase()
          .db.selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

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
    shop = await createPageShop(getDatabase(), { operator: { email: OPERATOR, password: PASSWORD } });
    guest = createBrowser(shop.app);
    shopper = await signedIn(SHOPPER, "register");
    operator = await signedIn(OPERATOR, "sign-in");
    // A paid order, so the order page has something to show an operator (and to hide from everybody else).
    await getDatabase()
      .db.insertInto("orders")
      .values({
        id: "pi_consoletest1",
        number: ORDER_NUMBER,
        session_id: null,
        user_id: null,
        amount_cents: 1196,
        currency: "usd",
        items: JSON.stringify([
          {
            productId: BOOK,
            title: "A book",
            priceCents: 1196,
            quantity: 1,
            rating: 4,
            image: { src: "/images/book.webp", width: 10, height: 10 },
          },
        ]),
        created_at: new Date(),
        paid_at: new Date(),
        contact_email: "buyer@console.test",
      })
      .execute();
  }, 60_000);
  afterAll(() => shop.close());

  /** Every /admin route in the route table, as an address (a product id for :id), with whether it takes posts. */
  const consoleRoutes = () => {
    const routes = shop.routeTable.filter((route) => /^\/admin(\/|$)/.test(route.path));
    expect(routes.length).toBeGreaterThanOrEqual(8);
    expect(routes.map((route) => route.path)).toEqual(
      expect.arrayContaining(["/admin/orders", "/admin/orders/:number", "/admin/outbox"]),
    );
    return routes.map((route) => ({
      ...route,
      address: route.path.replace(":id", BOOK).replace(":number", ORDER_NUMBER),
    }));
  };

  it("answers a guest and a shopper the shop's own 404 page on every /admin route and action, changing nothing", async () => {
    const notFound = await html(guest, "/no-such-page");
    expect(notFound.status).toBe(404);
    const notFoundText = mainText(await notFound.text());
    expect(notFoundText).toContain("Page not found");
    const before = await Promise.all([count("products"), count("audit_log"), count("operators")]);

    const addresses = consoleRoutes().flatMap((route) => [
      { ...route },
      ...(route.path.includes(":id") ? [{ ...route, address: route.path.replace(":id", "new") }] : []),
    ]);
    for (const [who, browser] of [
      ["guest", guest],
      ["shopper", shopper],
    ] as const) {
      for (const route of addresses) {
        const label = `${who} ${route.address}`;
        const page = await html(browser, route.address);
        expect(page.status, label).toBe(404);
        const text = await page.text();
        expect(mainText(text), label).toBe(notFoundText);
        // (Development rendering links a stylesheet by the rendered path; the production build has no such link.)
        // Nothing beyond the address itself (which the sign-out form returns to, and a guest's sign-in link comes back
        // to, as on any page).
        expect(
          text
            .split(route.address)
            .join("")
            .split(encodeURIComponent(route.address))
            .join("")
            .replace(/critical\.css\?pathname=[^"]*/g, "")
            .match(/.{0,60}(storefront console|operator|routes\/admin).{0,60}/i)?.[0],
          label,
        ).toBeUndefined();
        const data = await browser.send(`${route.address}.data`);
        expect(data.status, `${label}.data`).toBe(404);
        expect(
          (await data.text()).match(/.{0,60}(storefront console|operator|routes\/admin).{0,60}/i)?.[0],
          `${label}.data`,
        ).toBeUndefined();
        // Every action, as a form post and as the enhanced page's data post: the 404 page, nothing done.
        const form = new URLSearchParams({
          title: "Hijacked",
          price: "1.00",
          status: "active",
          featuredPosition: "",
          description: "",
          intent: "grant",
          email: who === "shopper" ? SHOPPER : "x@example.com",
        });
        const post = await html(browser, route.address, {
          method: "POST",
          body: form,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        });
        expect(post.status, `${label} POST`).toBe(404);
        expect(mainText(await post.text()), `${label} POST`).toBe(notFoundText);
        const dataPost = await browser.send(`${route.address}.data`, {
          method: "POST",
          body: form,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        });
        expect(dataPost.status, `${label}.data POST`).toBe(404);
      }
      // However the address is spelled.
      for (const address of [
        "/ADMIN/products",
        "/Admin",
        "/%61dmin/products",
        "//admin/products",
        "/admin/",
        "/admin/products/",
        "/admin/no-such-section",
      ]) {
        const response = await html(browser, address);
        expect(response.status, `${who} ${address}`).toBe(404);
        expect(mainText(await response.text()), `${who} ${address}`).toBe(notFoundText);
      }
    }
    // The route manifest every page carries names no console route to a shopper; an operator's names them all.
    const shopperHome = await (await html(shopper, "/")).text();
    expect(shopperHome).not.toContain("routes/admin");
    const shopManifest = /\/assets\/manifest-shop-[a-f0-9]{8}\.js/.exec(shopperHome)?.[0];
    expect(shopManifest).toBeTruthy();
    const shopManifestScript = await (await shopper.send(shopManifest!)).text();
    expect(shopManifestScript).toContain('"routes/home"');
    expect(shopManifestScript).not.toContain("routes/admin");
    const operatorManifest = /\/admin\/manifest-[a-f0-9]{8}\.js/.exec(await (await html(operator, "/")).text())?.[0];
    expect(operatorManifest).toBeTruthy();
    expect(await (await operator.send(operatorManifest!)).text()).toContain('"routes/admin/products"');
    expect((await html(shopper, operatorManifest!)).status).toBe(404);
    expect(await Promise.all([count("products"), count("audit_log"), count("operators")])).toEqual(before);
    expect(mainText(await (await html(shopper, "/")).text())).not.toContain("Admin");
  });

  it("holds everyone but an operator to the shop's 32 KB request limit on the picture form", async () => {
    const big = new Uint8Array(200 * 1024);
    const headers = { "content-type": "application/octet-stream", "content-length": String(big.byteLength) };
    const unknown = await guest.send("/no-such-page", { method: "POST", body: big, headers });
    const console = await shopper.send("/admin/products/new", { method: "POST", body: big, headers });
    expect(console.status).toBe(413);
    expect(console.status).toBe(unknown.status);
    // An operator's 31 MB form (the pictures' 30 MB together) is refused with a sentence, before it is read.
    const huge = await operator.send("/admin/products/new", {
      method: "POST",
      body: new Uint8Array(31 * 1024 * 1024),
      headers: {
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(31 * 1024 * 1024),
        accept: "text/html",
      },
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain("The pictures are larger than 30 MB together.");
  });

  it("answers an operator's malformed form (a repeated field, a JSON body, unstorable text) with a 400 that says why, changing nothing", async () => {
    const auditBefore = await count("audit_log");
    const operatorsBefore = await count("operators");
    const posts: [string, RequestInit, string][] = [
      [
        "/admin/staff",
        {
          body: "intent=invite&intent=invite&email=someone%40example.com&role=manager",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        "intent: sent more than once",
      ],
      [
        "/admin/staff",
        {
          body: JSON.stringify({ intent: "invite", email: "someone@example.com", role: "manager" }),
          headers: { "content-type": "application/json" },
        },
        "The form could not be read",
      ],
      [
        "/admin/staff",
        {
          body: "intent=invite&role=manager&email=some%00one%40example.com",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        "email: contains a character that cannot be stored",
      ],
      [
        `/admin/orders/${ORDER_NUMBER}`,
        {
          body: "intent=ship&intent=ship&carrier=UPS&trackingNumber=1Z",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        "intent: sent more than once",
      ],
      [
        `/admin/orders/${ORDER_NUMBER}`,
        {
          body: JSON.stringify({ intent: "ship", carrier: "UPS", trackingNumber: "1Z" }),
          headers: { "content-type": "application/json" },
        },
        "The form could not be read",
      ],
      [
        `/admin/orders/${ORDER_NUMBER}`,
        {
          body: "intent=ship&carrier=U%00PS&trackingNumber=1Z",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        },
        "carrier: contains a character that cannot be stored",
      ],
    ];
    for (const [path, init, sentence] of posts) {
      const response = await html(operator, path, { method: "POST", ...init });
      expect(response.status, `${path} ${String(init.body)}`).toBe(400);
      expect(mainText(await response.text()), path).toContain(sentence);
    }
    expect(await count("audit_log")).toBe(auditBefore);
    expect(await count("operators")).toBe(operatorsBefore);
  });

  it("shows an operator every console page, and the Admin link in the shop's header", async () => {
    // An e-mail of the outbox (the shopper's welcome) stands in for an e-mail's :id.
    const anEmail = await getDatabase()
      .db.selectFrom("email_outbox")
      .select("id")
      .orderBy("created_at")
      .executeTakeFirstOrThrow();
    // (An e-mail's HTML is the e-mail itself, a document of its own, not a console page: the outbox-e-mail page links it.
    // The CSV exports are downloads: server/imports/csv-console.test.ts reads them.)
    // A promotion stands in for a promotion's :id.
    const promotionId = await shop.services.promotions.create(
      {
        code: `PAGES-${Date.now()}`,
        kind: "percentage",
        value: 10,
        minimumSubtotalCents: 0,
        startsAt: null,
        endsAt: null,
        usageLimit: null,
        oncePerCustomer: false,
        status: "active",
      },
      { id: null, email: "owner@console.test" },
    );
    // A return of the order's first unit stands in for a return's :number.
    const order = await getDatabase()
      .db.selectFrom("orders")
      .select("id")
      .where("number", "=", ORDER_NUMBER)
      .executeTakeFirstOrThrow();
    const opened = await getDatabase()
      .db.transaction()
      .execute((trx) =>
        openReturn(trx, shop.services.email, {
          orderId: order.id,
          // A withdrawal's return: it sends no e-mail of its own, so the order's e-mails below stay the order's.
          kind: "withdrawal",
          lines: [{ index: 0, quantity: 1, reason: null, resolution: "refund" }],
          requestedBy: "shopper",
          returnFeeCents: 0,
        }),
      );
    const standIns: Record<string, string> = {
      "/admin/outbox/:id": anEmail.id,
      "/admin/promotions/:id": promotionId,
      "/admin/returns/:number": opened.number,
    };
    const pages = consoleRoutes()
      // (/admin/operators is the staff page's former address: a redirect to it.)
      .filter(
        (entry) =>
          !entry.path.endsWith("/html") && !entry.path.endsWith("/export") && entry.path !== "/admin/operators",
      )
      .map((entry) => {
        const standIn = Object.entries(standIns).find(([path]) => entry.path.startsWith(path))?.[1];
        return standIn ? { ...entry, address: entry.path.replace(/:id|:number/, standIn) } : entry;
      });
    for (const route of pages) {
      const response = await html(operator, route.address);
      expect(response.status, route.address).toBe(200);
      expect(response.headers.get("cache-control"), route.address).toBe("private, no-store");
      expect(await response.text(), route.address).toContain("Storefront console");
    }
    expect(await (await html(operator, "/")).text()).toMatch(/<a[^>]*href="\/admin"[^>]*>.*Admin/);
    const former = await html(operator, "/admin/operators");
    expect([former.status, former.headers.get("location")]).toEqual([301, "/admin/staff"]);
  });

  it("creates a product with a picture, shows errors by field, changes its price, and logs both writes", async () => {
    const picture = await sharp({
      create: { width: 900, height: 900, channels: 3, background: { r: 10, g: 120, b: 200 } },
    })
      .jpeg()
      .toBuffer();
    const productForm = (fields: Record<string, string>, file?: { bytes: Uint8Array; name: string; type: string }) => {
      const form = new FormData();
      for (const [name, value] of Object.entries({
        title: "Console Test Lamp",
        description: "A lamp.\n\nWith two paragraphs.",
        price: "$1,249.5",
        featuredPosition: "",
        status: "active",
        ...fields,
      })) {
        form.set(name, value);
      }
      form.set(
        "picture",
        file
          ? new File([new Uint8Array(file.bytes)], file.name, { type: file.type })
          : new File([], "", { type: "application/octet-stream" }),
      );
      return form;
    };

    // Errors by field, with what was typed kept.
    const badPrice = await html(operator, "/admin/products/new", {
      method: "POST",
      body: productForm({ price: "twelve" }, { bytes: picture, name: "lamp.jpg", type: "image/jpeg" }),
    });
    expect(badPrice.status).toBe(400);
    const badPricePage = await badPrice.text();
    expect(badPricePage).toContain("Enter a price in dollars and cents, like 12.99.");
    expect(badPricePage).toContain('value="twelve"');
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const badPicture = await html(operator, "/admin/products/new", {
      method: "POST",
      body: productForm({}, { bytes: svg, name: "lamp.jpg", type: "image/jpeg" }),
    });
    expect(badPicture.status).toBe(400);
    expect(await badPicture.text()).toContain("The picture must be a JPEG, PNG or WebP file.");
    const noPicture = await html(operator, "/admin/products/new", { method: "POST", body: productForm({}) });
    expect(await noPicture.text()).toContain("Choose a picture for the product.");
    const productsBefore = await count("products");

    const created = await html(operator, "/admin/products/new", {
      method: "POST",
      body: productForm({}, { bytes: picture, name: "lamp.jpg", type: "image/jpeg" }),
    });
    expect(created.status).toBe(302);
    const id = /\/admin\/products\/([^?]+)\?saved/.exec(created.headers.get("location") ?? "")?.[1];
    expect(id).toBeTruthy();
    expect(await count("products")).toBe(productsBefore + 1);

    // On the shop at once: search finds it, its page shows the price and the picture's widths.
    const search = await (await html(guest, "/search?q=console+lamp")).text();
    expect(search).toContain("Console Test Lamp");
    const page = await (await html(guest, "/products/console-test-lamp")).text();
    expect(page).toContain("$1,249.50");
    expect(page).toMatch(
      /srcSet="\/pictures\/[a-f0-9]{32}\.webp 200w, \/pictures\/[a-f0-9]{32}\.webp 400w, \/pictures\/[a-f0-9]{32}\.webp 800w"/i,
    );

    // A new price, no new picture: the picture stays.
    const edited = await html(operator, `/admin/products/${id}`, {
      method: "POST",
      body: productForm({ price: "15.5" }),
    });
    expect(edited.status).toBe(302);
    const after = await (await html(guest, "/products/console-test-lamp")).text();
    expect(after).toContain("$15.50");
    expect(after).toMatch(/srcSet="\/pictures\//i);

    const entries = await getDatabase()
      .db.selectFrom("audit_log")
      .select(["operator_email", "action", "before", "after"])
      .where("subject", "=", id!)
      .orderBy("id")
      .execute();
    expect(entries.map((entry) => [entry.operator_email, entry.action])).toEqual([
      [OPERATOR, "product.create"],
      [OPERATOR, "product.update"],
    ]);
    expect(entries[0]!.before).toBeNull();
    expect(entries[0]!.after).toMatchObject({ title: "Console Test Lamp", price_cents: 124_950, status: "active" });
    expect(entries[1]!.before).toEqual({ price_cents: 124_950 });
    expect(entries[1]!.after).toEqual({ price_cents: 1_550 });
    const log = await (await html(operator, "/admin/audit")).text();
    expect(log).toContain("price_cents: 124950 → 1550");

    // Archived: gone from the shop, still in the console's archived list.
    await html(operator, `/admin/products/${id}`, {
      method: "POST",
      body: productForm({ price: "15.5", status: "archived" }),
    });
    expect((await html(guest, "/products/console-test-lamp")).status).toBe(404);
    expect(await (await html(operator, "/admin/products?status=archived&q=lamp")).text()).toContain(
      "Console Test Lamp",
    );
  });

  it("finds orders by number and e-mail, pages them by keyset, ships one with its e-mail and audit entry, and refuses a refund above what is left", async () => {
    const { db } = getDatabase();
    // 55 more paid orders, a minute apart: a second page exists.
    await db
      .insertInto("orders")
      .values(
        Array.from({ length: 55 }, (_, i) => ({
          id: `pi_consolepage${String(i).padStart(2, "0")}`,
          number: `SF-2611-P${"23456789ABCDEFGHJKMNPQRSTUVWXYZ"[i % 31]}${"23456789"[Math.floor(i / 31)]}Z`,
          session_id: null,
          user_id: null,
          amount_cents: 500 + i,
          currency: "usd",
          items: JSON.stringify([
            {
              productId: BOOK,
              title: "A book",
              priceCents: 500 + i,
              quantity: 1,
              rating: 4,
              image: { src: "/images/book.webp", width: 10, height: 10 },
            },
          ]),
          created_at: new Date(Date.now() - (i + 1) * 60_000),
          paid_at: new Date(Date.now() - (i + 1) * 60_000),
          contact_email: `page${i}@console.test`,
          livemode: i === 0 ? true : false,
        })),
      )
      .execute();
    const first = await (await html(operator, "/admin/orders")).text();
    expect(first).toContain("Test");
    const next = /href="(\/admin\/orders\?after=[^"]+)"/.exec(first)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeTruthy();
    const second = await (await html(operator, next!)).text();
    // Page two starts where page one ended: no order on both.
    const numbersOf = (page: string) => [...page.matchAll(/>(SF-\d{4}-[2-9A-Z]{4})</g)].map((match) => match[1]);
    expect(numbersOf(first)).toHaveLength(50);
    expect(numbersOf(second)).toHaveLength(6);
    expect(numbersOf(first).filter((number) => numbersOf(second).includes(number))).toEqual([]);
    expect(numbersOf(await (await html(operator, `/admin/orders?q=${ORDER_NUMBER.toLowerCase()}`)).text())).toEqual([
      ORDER_NUMBER,
    ]);
    expect(numbersOf(await (await html(operator, "/admin/orders?q=PAGE3%40console.test")).text())).toHaveLength(1);
    expect(numbersOf(await (await html(operator, "/admin/orders?status=shipped")).text())).toEqual([]);

    const page = await (await html(operator, `/admin/orders/${ORDER_NUMBER}`)).text();
    expect(page).toContain("pi_consoletest1");
    expect(page).toContain("A book");
    const key = /name="key" value="([^"]+)"/.exec(page)?.[1] ?? "";
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const post = (fields: Record<string, string>) =>
      html(operator, `/admin/orders/${ORDER_NUMBER}`, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });

    const tooMuch = await post({ intent: "refund", key, amount: "12.00" });
    expect(tooMuch.status).toBe(400);
    const tooMuchPage = await tooMuch.text();
    expect(tooMuchPage).toContain("You can refund at most $11.96.");
    // Drawn again with the same key: sending the corrected form cannot add a refund to one already made.
    expect(tooMuchPage).toContain(`name="key" value="${key}"`);
    const noCarrier = await post({ intent: "ship", carrier: " ", trackingNumber: "1Z999" });
    expect(noCarrier.status).toBe(400);
    expect(await noCarrier.text()).toContain("Enter the carrier.");

    const shipped = await post({ intent: "ship", carrier: "UPS", trackingNumber: "1Z999AA10123456784" });
    expect(shipped.status).toBe(200);
    const shippedPage = await shipped.text();
    expect(shippedPage).toContain("Marked as shipped.");
    expect(mainText(shippedPage)).toContain(`Shipped ${OPERATOR} UPS 1Z999AA10123456784`);
    expect(
      await db.selectFrom("email_outbox").select("kind").where("recipient", "=", "buyer@console.test").execute(),
    ).toEqual([{ kind: "order-shipped" }]);
    expect(
      await db
        .selectFrom("audit_log")
        .select(["action", "operator_email"])
        .where("subject", "=", ORDER_NUMBER)
        .execute(),
    ).toEqual([{ action: "order.ship", operator_email: OPERATOR }]);
    expect(await (await html(operator, "/admin/outbox")).text()).toContain("buyer@console.test");
    // Shipped twice: refused with a sentence, nothing written.
    const again = await post({ intent: "ship", carrier: "UPS", trackingNumber: "x" });
    expect(await again.text()).toContain(`Order ${ORDER_NUMBER} is shipped, so it cannot be shipped.`);
    expect(
      await db.selectFrom("email_outbox").select("kind").where("recipient", "=", "buyer@console.test").execute(),
    ).toHaveLength(1);

    // A refund form only asks first, naming the amount (an empty Amount: everything left) and the card; nothing moves.
    const asked = await post({ intent: "refund", key, amount: "" });
    expect(asked.status).toBe(200);
    const question = mainText(await asked.text());
    expect(question).toMatch(/Refund \$11\.96 to (the card it was paid with|[A-Z][\w ]+ ending in \d{4})\?/);
    expect(
      await db.selectFrom("email_outbox").select("kind").where("recipient", "=", "buyer@console.test").execute(),
    ).toHaveLength(1);
    expect(
      await db.selectFrom("audit_log").select("action").where("subject", "=", ORDER_NUMBER).execute(),
    ).toHaveLength(1);
    expect(question).toContain("Keep the money, go back");
  });
});
