import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OPERATOR = "csv-owner@console.test";
const SHOPPER = "csv-shopper@console.test";
const PASSWORD = "violet tractor harbour pickle";
const BOOK = "12321341";

const THREE_PRODUCTS = [
  "URL handle,Title,Description,Type,Status,Option1 name,Option1 value,Option2 name,Option2 value,SKU,Price,Inventory tracker,Inventory quantity",
  "console-tee,Console Tee,<p>Soft.</p>,Shirts,active,Size,S,Colour,Red,CT-S-RED,18.00,shopify,4",
  "console-tee,,,,,,M,,Red,CT-M-RED,18.00,shopify,2",
  "console-cup,Console Cup,A cup.,Mugs,active,Title,Default Title,,,CC-1,6.00,,",
  "console-pen,Console Pen,,Stationery,active,Title,Default Title,,,CP-1,2.50,,",
].join("\n");

/**
 * The CSV pages as a browser without JavaScript meets them, rendered by React Router as in production: the import's
 * form, its Preview and Import, its limits, and the two downloads, all for operators only.
 */
describeEachDatabase("the console's CSV import and exports", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  type Browser = ReturnType<typeof createBrowser>;
  let operator: Browser;
  let shopper: Browser;

  const html = (browser: Browser, path: string, init: RequestInit = {}) =>
    browser.send(path, {
      ...init,
      headers: { accept: "text/html", origin: "http://shop.test", ...Object.fromEntries(new Headers(init.headers)) },
    });
  const mainText = (page: string) =>
    /<main[^>]*>([\s\S]*?)<\/main>/
      .exec(page)?.[1]
      ?.replace(/<[^>]+>/g, " ")
      .replace(/&quot;/g, '"')
      .replace(/&#x27;|&#39;/g, "'")
      .replace(/&gt;/g, ">")
      .replace(/&lt;/g, "<")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim() ?? "";
  const importForm = (intent: string, text?: string) => {
    const form = new FormData();
    form.set("intent", intent);
    form.set(
      "file",
      text === undefined
        ? new File([], "", { type: "application/octet-stream" })
        : new File([text], "three.csv", { type: "text/csv" }),
    );
    return form;
  };

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
    operator = await signedIn(OPERATOR, "sign-in");
    shopper = await signedIn(SHOPPER, "register");
  }, 60_000);
  afterAll(() => shop.close());

  it("offers Export CSV and Import CSV on the products page, and the import's form with its labels", async () => {
    const products = await (await html(operator, "/admin/products")).text();
    expect(products).toMatch(/<a href="\/admin\/products\/export" class="console-button" download="">Export CSV<\/a>/);
    expect(products).toMatch(/<a[^>]*href="\/admin\/products\/import"[^>]*>Import CSV<\/a>/);
    const page = await (await html(operator, "/admin/products/import")).text();
    expect(page).toMatch(/<label for="field-file">CSV file<\/label>/);
    const input = /<input id="field-file"[^>]*>/.exec(page)?.[0] ?? "";
    expect(input).toContain('type="file"');
    expect(input).toContain('name="file"');
    expect(page).toMatch(/<button type="submit" value="preview"[^>]*name="intent"[^>]*>Preview<\/button>/);
    expect(page).toMatch(/<button type="submit" value="import"[^>]*name="intent"[^>]*>Import<\/button>/);
  });

  it("previews a file without JavaScript, then imports it and shows the import's report", async () => {
    const noFile = await html(operator, "/admin/products/import", { method: "POST", body: importForm("preview") });
    expect(noFile.status).toBe(400);
    expect(mainText(await noFile.text())).toContain("Choose a CSV file.");

    const preview = await html(operator, "/admin/products/import", {
      method: "POST",
      body: importForm("preview", THREE_PRODUCTS),
    });
    expect(preview.status).toBe(200);
    const previewText = mainText(await preview.text());
    expect(previewText).toContain("Preview of “three.csv”");
    expect(previewText).toContain(
      "4 rows, 3 products (Shopify's current layout): 3 created, 0 updated, 0 unchanged, 0 with errors.",
    );
    expect(previewText).toContain("Stock S / Red: 0 -> 4");
    expect(
      await getDatabase().db.selectFrom("products").select("id").where("slug", "=", "console-tee").execute(),
    ).toEqual([]);

    const imported = await html(operator, "/admin/products/import", {
      method: "POST",
      body: importForm("import", THREE_PRODUCTS),
    });
    expect(imported.status).toBe(302);
    const reportAddress = imported.headers.get("location") ?? "";
    expect(reportAddress).toMatch(/^\/admin\/products\/import\?import=[0-9a-f-]{36}$/);
    expect(mainText(await (await html(operator, reportAddress)).text())).toMatch(
      /Imported 4 rows at [A-Z][a-z]+ \d+[a-z]{2} \d{4}, \d+:\d\d[ap]m UTC: 3 created, 0 updated, 0 unchanged\./,
    );
    expect(mainText(await (await html(operator, "/search?q=console+tee")).text())).toContain("Console Tee");

    // A file with an error: nothing is imported, and the page names the line.
    const bad = await html(operator, "/admin/products/import", {
      method: "POST",
      body: importForm("import", THREE_PRODUCTS.replace("CP-1,2.50", "CP-1,two")),
    });
    expect(bad.status).toBe(400);
    const badText = mainText(await bad.text());
    expect(badText).toContain("Nothing was imported");
    expect(badText).toContain("Line 5: the price “two” is not an amount from $0.01 to $999,999.99, like 12.99.");
  });

  it("holds the import to 20 MB for an operator, and everyone else to the shop's 32 KB", async () => {
    const big = 21 * 1024 * 1024;
    const huge = await operator.send("/admin/products/import", {
      method: "POST",
      body: new Uint8Array(big),
      headers: {
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(big),
        accept: "text/html",
      },
    });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toContain("The file is larger than 20 MB. Nothing was imported");
    const fromShopper = await shopper.send("/admin/products/import", {
      method: "POST",
      body: new Uint8Array(200 * 1024),
      headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(200 * 1024) },
    });
    expect(fromShopper.status).toBe(413);
  });

  it("downloads the products as CSV, gzipped as a stream, for operators only", async () => {
    const response = await operator.send("/admin/products/export", { headers: { "accept-encoding": "gzip" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-encoding")).toBe("gzip");
    const text = gunzipSync(Buffer.from(await response.arrayBuffer())).toString("utf8");
    expect(text.split("\n")[0]).toContain("URL handle,Title,Description,Vendor,Type,Tags,Status");
    expect(text).toContain("console-tee,,,,,,,,M,,Red,,,CT-M-RED,18.00,,TRUE,shopify,2,DENY,0,,");
    expect((await html(shopper, "/admin/products/export")).status).toBe(404);
  });

  it("downloads the orders of the list's filter, one row per line, the order's figures on its first", async () => {
    const { db } = getDatabase();
    const order = (id: string, number: string, status: "paid" | "shipped", paidAt: string, title: string) => ({
      id,
      number,
      session_id: null,
      user_id: null,
      amount_cents: 3892,
      currency: "usd",
      items: JSON.stringify([
        {
          productId: BOOK,
          title,
          sku: "BOOK-1",
          priceCents: 1196,
          quantity: 2,
          rating: 4,
          image: { src: "/images/book.webp", width: 10, height: 10 },
        },
        {
          productId: "x",
          variantId: "v",
          title: "Console Tee",
          options: [{ name: "Size", value: "M" }],
          sku: "CT-M-RED",
          priceCents: 1800,
          quantity: 1,
          rating: 5,
          image: { src: "/x.webp", width: 10, height: 10 },
        },
      ]),
      created_at: new Date(paidAt),
      paid_at: new Date(paidAt),
      status,
      fulfilment_status: status === "shipped" ? ("shipped" as const) : ("unfulfilled" as const),
      contact_email: "buyer@console.test",
      delivery_address: JSON.stringify({
        name: "Ada Lovelace",
        line1: "1 Main Street",
        line2: null,
        city: "Los Angeles",
        region: "CA",
        postalCode: "90001",
        country: "US",
      }),
      pricing: JSON.stringify({
        itemsCents: 4192,
        discountCents: 300,
        shippingCents: 0,
        totalBeforeTaxCents: 3892,
        taxCents: 0,
        totalCents: 3892,
        lines: [],
        shipping: null,
        deliveryOptions: [],
        isUndeliverable: false,
        taxes: [],
        promotion: { code: "SPRING", kind: "amount" },
      }),
    });
    await db
      .insertInto("orders")
      .values([
        order("pi_csvexport1", "SF-2611-CSV2", "shipped", "2026-11-20T10:00:00Z", '=HYPERLINK("http://x")'),
        order("pi_csvexport2", "SF-2611-CSV3", "paid", "2026-11-25T10:00:00Z", "A book"),
      ])
      .execute();

    const response = await operator.send("/admin/orders/export?status=shipped&from=2026-11-19&to=2026-11-20");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = (await response.text()).trim().split("\n");
    expect(lines).toEqual([
      "Name,Email,Financial Status,Fulfillment Status,Paid at,Subtotal,Shipping,Taxes,Total,Discount Code,Discount Amount,Refunded Amount,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Lineitem returned quantity,Shipping Name,Shipping Address1,Shipping City,Shipping Zip,Shipping Province,Shipping Country",
      `SF-2611-CSV2,buyer@console.test,paid,fulfilled,2026-11-20 10:00:00 +0000,38.92,0.00,0.00,38.92,SPRING,3.00,0.00,2,"'=HYPERLINK(""http://x"")",11.96,BOOK-1,0,Ada Lovelace,1 Main Street,Los Angeles,90001,CA,US`,
      "SF-2611-CSV2,buyer@console.test,,,,,,,,,,,1,Console Tee - M,18.00,CT-M-RED,0,,,,,,",
    ]);
    // The page's own filter leads to the same download.
    const ordersPage = await (
      await html(operator, "/admin/orders?status=shipped&from=2026-11-19&to=2026-11-20")
    ).text();
    expect(ordersPage).toContain('href="/admin/orders/export?status=shipped&amp;from=2026-11-19&amp;to=2026-11-20"');
    expect(mainText(ordersPage)).toContain("SF-2611-CSV2");
    expect(mainText(ordersPage)).not.toContain("SF-2611-CSV3");
    expect((await html(shopper, "/admin/orders/export")).status).toBe(404);
  });
});
