import { gunzipSync } from "node:zlib";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "#server/audit/audit-log";
import { NO_PICTURE } from "#server/catalogue/catalogue-data";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { DEFAULT_LISTING_STATE } from "#shared/listing";
import { neutraliseFormula, undoNeutralisedFormula } from "./csv-cells";
import { MAX_CSV_BYTES, readProductCsv } from "./product-csv-read";

const OPERATOR: Actor = { id: null, email: "importer@example.com" };
const SLOW = { timeout: 120_000 };
const csvFile = (text: string, name = "products.csv") => ({ name, bytes: new TextEncoder().encode(text) });

/** Shopify's current layout, three products: a T-shirt with Size and Colour and stock, a mug, a draft book. */
const CURRENT_LAYOUT = [
  "URL handle,Title,Description,Vendor,Type,Tags,Status,Option1 name,Option1 value,Option2 name,Option2 value,SKU,Price,Compare-at price,Charge tax,Inventory tracker,Inventory quantity,Continue selling when out of stock,Weight value (grams),Product image URL,Departments",
  'csv-test-tee,CSV Test Tee,"<p>Soft cotton, <b>organic</b>.</p><p>Second &amp; last paragraph.</p>",Acme,Shirts,"cotton, summer",active,Size,S,Colour,Black,TEE-S-BLK,20.00,25.00,TRUE,shopify,7,DENY,180,,Clothing > T-shirts',
  "csv-test-tee,,,,,,,,S,,White,TEE-S-WHT,20.00,,TRUE,shopify,3,DENY,180,,",
  "csv-test-tee,,,,,,,,M,,Black,TEE-M-BLK,22.00,,TRUE,shopify,0,CONTINUE,190,,",
  "csv-test-mug,CSV Test Mug,A plain mug.,,Mugs,,active,Title,Default Title,,,MUG-1,9.50,,FALSE,,,DENY,350,,Kitchen",
  "csv-test-book,CSV Test Book,,,Books,,draft,Title,Default Title,,,,12.00,,TRUE,,,,,,Books",
].join("\n");

/** Shopify's classic layout, as a shop moving from Shopify has it: its own columns, some the shop does not use. */
const CLASSIC_LAYOUT = [
  "Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Option3 Name,Option3 Value,Variant SKU,Variant Grams,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Fulfillment Service,Variant Price,Variant Compare At Price,Variant Requires Shipping,Variant Taxable,Variant Barcode,Image Src,Image Position,Image Alt Text,Gift Card,SEO Title,Status",
  'classic-lamp,Classic Lamp,"<h2>Bright</h2><ul><li>LED</li><li>Dimmable</li></ul><script>alert(1)</script>",Lumen,Lighting,"desk, lamp",TRUE,Title,Default Title,,,,,LAMP-1,1200,shopify,4,deny,manual,39.99,49.99,TRUE,TRUE,0123,,1,,FALSE,,active',
  // One of Shopify's extra-picture rows: the handle and an image position alone.
  "classic-lamp,,,,,,,,,,,,,,,,,,,,,,,,,2,,,,",
  "classic-rug,Classic Rug,<p>Wool.</p>,Weave,,,FALSE,Size,Small,,,,,RUG-S,2000,,,deny,manual,80.00,,TRUE,FALSE,,,1,,FALSE,,",
  "classic-rug,,,,,,,,Large,,,,,RUG-L,4000,,,deny,manual,140.00,,TRUE,FALSE,,,,,,,",
].join("\n");

describeEachDatabase("products in and out as CSV", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
  }, SLOW.timeout);

  const db = () => getDatabase().db;
  const count = async (
    table: "products" | "product_variants" | "departments" | "audit_log" | "stock_ledger" | "product_imports",
  ) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const productBySlug = (slug: string) =>
    db().selectFrom("products").selectAll().where("slug", "=", slug).executeTakeFirstOrThrow();
  const variantsOf = (productId: string) =>
    db().selectFrom("product_variants").selectAll().where("product_id", "=", productId).orderBy("position").execute();
  const departmentsOf = async (productId: string) =>
    (
      await db()
        .selectFrom("product_departments")
        .innerJoin("departments", "departments.id", "product_departments.department_id")
        .leftJoin("departments as parent", "parent.id", "departments.parent_id")
        .select(["departments.name", "parent.name as parent"])
        .where("product_id", "=", productId)
        .execute()
    )
      .map((row) => (row.parent ? `${row.parent} > ${row.name}` : row.name))
      .sort();
  const exportText = async () => {
    const response = shop.services.csvExports.products(
      new Request("http://shop.test/admin/products/export"),
      "http://shop.test",
    );
    return response.text();
  };
  /** Everything an import may write, to show that one changed nothing. */
  const catalogueSnapshot = async () => ({
    products: await db()
      .selectFrom("products")
      .select([
        "id",
        "slug",
        "title",
        "description",
        "price_cents",
        "status",
        "vendor",
        "product_type",
        "tags",
        "image",
        "image_srcset",
        "updated_at",
      ])
      .orderBy("id")
      .execute(),
    variants: await db().selectFrom("product_variants").selectAll().orderBy("id").execute(),
    options: await db().selectFrom("product_options").selectAll().orderBy("product_id").orderBy("position").execute(),
    placements: await db()
      .selectFrom("product_departments")
      .selectAll()
      .orderBy("product_id")
      .orderBy("department_id")
      .execute(),
    departments: await count("departments"),
    ledger: await count("stock_ledger"),
    version: (await db().selectFrom("catalogue_version").select("version").executeTakeFirstOrThrow()).version,
  });

  it(
    "previews Shopify's current layout product by product, writing nothing, then imports it in one go",
    SLOW,
    async () => {
      const before = await catalogueSnapshot();
      const auditBefore = await count("audit_log");
      const preview = await shop.services.productCsv.preview(csvFile(CURRENT_LAYOUT));
      expect(preview.fileError).toBeNull();
      expect(preview.layout).toBe("current");
      expect(preview.counts).toEqual({ created: 3, updated: 0, unchanged: 0, error: 0 });
      expect(preview.products.map((product) => [product.line, product.handle, product.outcome])).toEqual([
        [2, "csv-test-tee", "created"],
        [5, "csv-test-mug", "created"],
        [6, "csv-test-book", "created"],
      ]);
      expect(preview.products[0]!.changes).toEqual(
        expect.arrayContaining([
          "Departments: Clothing > T-shirts",
          "New departments: Clothing > T-shirts (new)",
          "Stock S / Black: 0 -> 7",
          "Stock S / White: 0 -> 3",
        ]),
      );
      expect(await catalogueSnapshot()).toEqual(before);
      expect(await count("audit_log")).toBe(auditBefore);

      const imported = await shop.services.productCsv.importFile(OPERATOR, csvFile(CURRENT_LAYOUT, "spring.csv"));
      expect(imported.ok).toBe(true);
      expect(imported.report.counts).toEqual({ created: 3, updated: 0, unchanged: 0, error: 0 });

      const tee = await productBySlug("csv-test-tee");
      expect(tee).toMatchObject({
        title: "CSV Test Tee",
        description: "Soft cotton, organic.\n\nSecond & last paragraph.",
        vendor: "Acme",
        product_type: "Shirts",
        tags: ["cotton", "summer"],
        status: "active",
        price_cents: 2000,
        rating: null,
        image: NO_PICTURE.src,
      });
      const options = await db()
        .selectFrom("product_options")
        .select(["name", "values"])
        .where("product_id", "=", tee.id)
        .orderBy("position")
        .execute();
      expect(options).toEqual([
        { name: "Size", values: ["S", "M"] },
        { name: "Colour", values: ["Black", "White"] },
      ]);
      expect(
        (await variantsOf(tee.id)).map((variant) => [
          variant.option_values,
          variant.sku,
          variant.price_cents,
          variant.compare_at_cents,
          variant.weight_grams,
          variant.tracks_stock,
          variant.on_hand,
          variant.continue_selling,
        ]),
      ).toEqual([
        [["S", "Black"], "TEE-S-BLK", 2000, 2500, 180, true, 7, false],
        [["S", "White"], "TEE-S-WHT", 2000, null, 180, true, 3, false],
        [["M", "Black"], "TEE-M-BLK", 2200, null, 190, true, 0, true],
      ]);
      // Each quantity set is a ledger row "import", naming the import.
      const ledger = await db()
        .selectFrom("stock_ledger")
        .select(["reason", "quantity_before", "quantity_after", "actor", "reference"])
        .where("product_id", "=", tee.id)
        .orderBy("id")
        .execute();
      expect(ledger).toEqual([
        {
          reason: "import",
          quantity_before: 0,
          quantity_after: 7,
          actor: OPERATOR.email,
          reference: `import ${imported.ok ? imported.id : ""}`,
        },
        {
          reason: "import",
          quantity_before: 0,
          quantity_after: 3,
          actor: OPERATOR.email,
          reference: `import ${imported.ok ? imported.id : ""}`,
        },
      ]);
      expect(await departmentsOf(tee.id)).toEqual(["Clothing > T-shirts"]);

      const mug = await productBySlug("csv-test-mug");
      expect(mug).toMatchObject({ description: "A plain mug.", price_cents: 950, status: "active" });
      expect(
        (await variantsOf(mug.id)).map((variant) => [
          variant.id,
          variant.option_values,
          variant.sku,
          variant.charge_tax,
          variant.weight_grams,
          variant.tracks_stock,
        ]),
      ).toEqual([[mug.id, [], "MUG-1", false, 350, false]]);
      expect(await departmentsOf(mug.id)).toEqual(["Kitchen"]);
      // A draft is not on sale: archived.
      const book = await productBySlug("csv-test-book");
      expect(book.status).toBe("archived");
      expect(await departmentsOf(book.id)).toEqual(["Books"]);

      // On the shop at once.
      const found = await shop.services.catalogue.search("CSV Test", DEFAULT_LISTING_STATE);
      expect(found.products.map((product) => product.title).sort()).toEqual(["CSV Test Mug", "CSV Test Tee"]);
      const page = await shop.services.catalogue.findProductPage("csv-test-tee");
      expect(page.kind === "product" && page.product.variants.map((variant) => variant.stock.available)).toEqual([
        7, 3, 0,
      ]);

      const audit = await db()
        .selectFrom("audit_log")
        .select(["action", "subject", "operator_email", "after"])
        .orderBy("id", "desc")
        .executeTakeFirstOrThrow();
      expect(audit).toMatchObject({
        action: "products.import",
        subject: "spring.csv",
        operator_email: OPERATOR.email,
        after: { created: 3, updated: 0, unchanged: 0, rows: 5 },
      });
    },
  );

  it("shows a stock change as 7 -> 5 in the preview, and imports it as a ledger row", SLOW, async () => {
    const changed = CURRENT_LAYOUT.replace(
      "TEE-S-BLK,20.00,25.00,TRUE,shopify,7,",
      "TEE-S-BLK,20.00,25.00,TRUE,shopify,5,",
    );
    const preview = await shop.services.productCsv.preview(csvFile(changed));
    expect(preview.counts).toEqual({ created: 0, updated: 1, unchanged: 2, error: 0 });
    expect(preview.products[0]).toMatchObject({
      handle: "csv-test-tee",
      outcome: "updated",
      changes: ["Stock S / Black: 7 -> 5"],
    });
    const imported = await shop.services.productCsv.importFile(OPERATOR, csvFile(changed));
    expect(imported.ok).toBe(true);
    const tee = await productBySlug("csv-test-tee");
    expect((await variantsOf(tee.id)).map((variant) => variant.on_hand)).toEqual([5, 3, 0]);
    const last = await db()
      .selectFrom("stock_ledger")
      .select(["reason", "quantity_before", "quantity_after"])
      .where("product_id", "=", tee.id)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(last).toEqual({ reason: "import", quantity_before: 7, quantity_after: 5 });
    // Without a tracker column, an empty quantity leaves the stock as it is (tracked, 5); a tracker left empty stops tracking.
    const keep = [
      "URL handle,Option1 name,Option1 value,Option2 name,Option2 value,Inventory quantity",
      "csv-test-tee,Size,S,Colour,Black,",
      "csv-test-tee,,S,,White,3",
      "csv-test-tee,,M,,Black,",
    ];
    expect((await shop.services.productCsv.preview(csvFile(keep.join("\n")))).products[0]).toMatchObject({
      outcome: "unchanged",
    });
    const untrack = keep.map((line, index) =>
      index === 0 ? `${line},Inventory tracker` : `${line},${index === 1 ? "" : "shopify"}`,
    );
    expect((await shop.services.productCsv.preview(csvFile(untrack.join("\n")))).products[0]).toMatchObject({
      outcome: "updated",
      changes: ["Stock S / Black: not tracked"],
    });
  });

  it(
    "imports Shopify's classic layout: departments from Type, HTML reduced to paragraphs, unknown columns listed",
    SLOW,
    async () => {
      const preview = await shop.services.productCsv.preview(csvFile(CLASSIC_LAYOUT));
      expect(preview.layout).toBe("classic");
      expect(preview.ignoredColumns).toEqual([
        "Variant Fulfillment Service",
        "Variant Requires Shipping",
        "Variant Barcode",
        "Image Position",
        "Image Alt Text",
        "Gift Card",
        "SEO Title",
      ]);
      expect(preview.counts).toEqual({ created: 2, updated: 0, unchanged: 0, error: 0 });
      const imported = await shop.services.productCsv.importFile(OPERATOR, csvFile(CLASSIC_LAYOUT));
      expect(imported.ok).toBe(true);

      const lamp = await productBySlug("classic-lamp");
      // No markup is kept: the list's items are lines, the script is gone.
      expect(lamp).toMatchObject({
        title: "Classic Lamp",
        description: "Bright\n\n- LED\n- Dimmable",
        vendor: "Lumen",
        product_type: "Lighting",
        tags: ["desk", "lamp"],
        status: "active",
        price_cents: 3999,
      });
      expect(
        (await variantsOf(lamp.id)).map((variant) => [
          variant.option_values,
          variant.sku,
          variant.compare_at_cents,
          variant.weight_grams,
          variant.tracks_stock,
          variant.on_hand,
        ]),
      ).toEqual([[[], "LAMP-1", 4999, 1200, true, 4]]);
      expect(await departmentsOf(lamp.id)).toEqual(["Lighting"]);
      const rug = await productBySlug("classic-rug");
      // Published FALSE and no Status: archived; no Type: in no department; untracked stock.
      expect(rug).toMatchObject({ status: "archived", description: "Wool.", price_cents: 8000 });
      expect(
        (await variantsOf(rug.id)).map((variant) => [
          variant.option_values,
          variant.sku,
          variant.price_cents,
          variant.charge_tax,
          variant.tracks_stock,
        ]),
      ).toEqual([
        [["Small"], "RUG-S", 8000, false, false],
        [["Large"], "RUG-L", 14000, false, false],
      ]);
      expect(await departmentsOf(rug.id)).toEqual([]);
    },
  );

  it(
    "reads quoted cells with commas, line breaks and quotes, a byte-order mark, CRLF line ends, and undoes the export's apostrophe",
    SLOW,
    async () => {
      const text =
        "\uFEFF" +
        [
          "URL handle,Title,Description,Price,Tags",
          'quoted-mug,"Mug, ""Large"" edition","First line, with a comma\r\nSecond line ""quoted""",14.00,"a, b"',
          "plus-cable,'+1 Cable,'=not a formula,3.00,'-sale",
        ].join("\r\n") +
        "\r\n";
      const preview = await shop.services.productCsv.preview(csvFile(text));
      expect(preview.products.map((product) => [product.line, product.outcome])).toEqual([
        [2, "created"],
        // The quoted cell of line 2 spans two lines: the next row starts on line 4.
        [4, "created"],
      ]);
      expect((await shop.services.productCsv.importFile(OPERATOR, csvFile(text))).ok).toBe(true);
      expect(await productBySlug("quoted-mug")).toMatchObject({
        title: 'Mug, "Large" edition',
        description: 'First line, with a comma\nSecond line "quoted"',
        tags: ["a", "b"],
      });
      expect(await productBySlug("plus-cable")).toMatchObject({
        title: "+1 Cable",
        description: "=not a formula",
        tags: ["-sale"],
      });
      // The export writes them back with the apostrophe, and the round trip keeps them.
      const exported = await exportText();
      expect(exported).toContain("plus-cable,'+1 Cable,<p>=not a formula</p>,,,'-sale,active,");
    },
  );

  it("refuses the whole import for one bad row, naming its line, and changes nothing", SLOW, async () => {
    const text = [
      "URL handle,Title,Price,Inventory quantity,Departments",
      "good-lamp,Good Lamp,19.99,4,Nowhere Yet",
      "bad-lamp,Bad Lamp,nineteen,4,",
      "csv-test-mug,CSV Test Mug,9.50,,Kitchen",
    ].join("\n");
    const before = await catalogueSnapshot();
    const auditBefore = await count("audit_log");
    const importsBefore = await count("product_imports");
    const outcome = await shop.services.productCsv.importFile(OPERATOR, csvFile(text));
    expect(outcome.ok).toBe(false);
    expect(outcome.report.counts.error).toBe(1);
    const bad = outcome.report.products.find((product) => product.outcome === "error");
    expect(bad).toMatchObject({ line: 3, handle: "bad-lamp" });
    expect(bad!.reasons).toEqual([
      "Line 3: the price “nineteen” is not an amount from $0.01 to $999,999.99, like 12.99.",
    ]);
    expect(await catalogueSnapshot()).toEqual(before);
    expect(await count("audit_log")).toBe(auditBefore);
    expect(await count("product_imports")).toBe(importsBefore);
    expect(await db().selectFrom("departments").select("id").where("name", "=", "Nowhere Yet").execute()).toEqual([]);
  });

  it("refuses a row whose URL handle and SKU name two different products", SLOW, async () => {
    const text = ["URL handle,Title,SKU,Price", "csv-test-mug,CSV Test Mug,LAMP-1,9.50"].join("\n");
    const preview = await shop.services.productCsv.preview(csvFile(text));
    expect(preview.products[0]).toMatchObject({
      outcome: "error",
      reasons: [
        "Line 2: the URL handle “csv-test-mug” is the product “CSV Test Mug”, but the SKU “LAMP-1” is the product “Classic Lamp”'s: a row names one product.",
      ],
    });
    // A row without a handle match is matched by its SKU: the product moves to the new handle.
    const bySku = await shop.services.productCsv.preview(
      csvFile(["URL handle,Title,SKU,Price", "desk-lamp-classic,Classic Lamp,LAMP-1,39.99"].join("\n")),
    );
    expect(bySku.products[0]).toMatchObject({
      outcome: "updated",
      changes: ["URL handle: classic-lamp -> desk-lamp-classic"],
    });
  });

  it("exports every product and imports the same file back unchanged, changing nothing", SLOW, async () => {
    // An oversold variant (on hand below zero), a formula-like title and an uploaded picture travel too.
    const tee = await productBySlug("csv-test-tee");
    await shop.services.inventory.setStock(
      db(),
      (await variantsOf(tee.id))[1]!.id,
      { tracksStock: true, continueSelling: false, onHand: -2 },
      OPERATOR.email,
    );
    const mug = await productBySlug("csv-test-mug");
    const picture = await shop.services.pictures.storePicture(
      await sharp({ create: { width: 500, height: 500, channels: 3, background: { r: 20, g: 90, b: 160 } } })
        .png()
        .toBuffer(),
    );
    await shop.services.catalogue.updateProduct(mug.id, { image: picture });
    const exported = await exportText();
    const products = await count("products");
    const lines = exported.split("\n").filter((line) => line !== "");
    expect(lines[0]).toBe(
      "URL handle,Title,Description,Vendor,Type,Tags,Status,Option1 name,Option1 value,Option2 name,Option2 value,Option3 name,Option3 value,SKU,Price,Compare-at price,Charge tax,Inventory tracker,Inventory quantity,Continue selling when out of stock,Weight value (grams),Product image URL,Departments",
    );
    expect(exported).toContain("csv-test-tee,,,,,,,,S,,White,,,TEE-S-WHT,20.00,,TRUE,shopify,-2,DENY,180,,");
    // The seeded products' pictures by their address on the shop.
    expect(exported).toMatch(
      /the-lean-startup,The Lean Startup[^\n]*,http:\/\/shop\.test\/images\/products\/12321341\.webp,Books/,
    );

    const before = await catalogueSnapshot();
    const preview = await shop.services.productCsv.preview(csvFile(exported));
    expect(preview.products.filter((product) => product.outcome !== "unchanged")).toEqual([]);
    expect(preview.counts.unchanged).toBe(products);
    const imported = await shop.services.productCsv.importFile(OPERATOR, csvFile(exported));
    expect(imported.ok && imported.report.counts).toEqual({ created: 0, updated: 0, unchanged: products, error: 0 });
    expect(await catalogueSnapshot()).toEqual(before);

    // The shop's own picture, named for another product, is kept as it is: nothing is fetched.
    expect(exported).toContain(`http://shop.test${picture.src}`);
    const givenThePicture = await shop.services.productCsv.importFile(
      OPERATOR,
      csvFile(["URL handle,Product image URL", `csv-test-book,http://shop.test${picture.src}`].join("\n")),
    );
    expect(givenThePicture.ok && givenThePicture.report.products[0]).toMatchObject({
      outcome: "updated",
      changes: [`Picture: ${picture.src}`],
    });
    expect(givenThePicture.ok && (await shop.services.productCsv.getImport(givenThePicture.id))?.pictures).toEqual([]);
    expect(await productBySlug("csv-test-book")).toMatchObject({
      image: picture.src,
      image_width: picture.width,
      image_height: picture.height,
      image_srcset: picture.srcSet,
    });
  });

  it("streams the export gzipped to a client that takes it, and plain to one that does not", SLOW, async () => {
    const gzipped = shop.services.csvExports.products(
      new Request("http://shop.test/admin/products/export", {
        headers: { "accept-encoding": "gzip, deflate, br, zstd" },
      }),
      "http://shop.test",
    );
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("content-length")).toBeNull();
    expect(gzipped.headers.get("cache-control")).toBe("private, no-store, no-transform");
    expect(gzipped.headers.get("content-disposition")).toMatch(
      /^attachment; filename="products-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString("utf8");
    // (Response.text() drops the byte-order mark, as any UTF-8 reader does.)
    expect(text).toBe(`\uFEFF${await exportText()}`);
    const plain = shop.services.csvExports.products(
      new Request("http://shop.test/admin/products/export", { headers: { "accept-encoding": "identity" } }),
      "http://shop.test",
    );
    expect(plain.headers.get("content-encoding")).toBeNull();
  });

  it(
    "refuses a file that is not UTF-8, one larger than 20 MB and one of more than 100,000 rows, each with a sentence",
    SLOW,
    async () => {
      const latin1 = new Uint8Array([
        ...new TextEncoder().encode("URL handle,Title,Price\nmug,Caf"),
        0xe9,
        ...new TextEncoder().encode(",3.00\n"),
      ]);
      expect(await readProductCsv(latin1)).toMatchObject({
        ok: false,
        error: "The file is not UTF-8 text: save it as “CSV UTF-8” and try again.",
      });
      expect(await readProductCsv(new Uint8Array(MAX_CSV_BYTES + 1))).toMatchObject({
        ok: false,
        error: "The file is larger than 20 MB: split it into smaller files.",
      });
      const manyRows = `URL handle,Price\n${"m,1.00\n".repeat(100_001)}`;
      expect(await readProductCsv(new TextEncoder().encode(manyRows))).toMatchObject({
        ok: false,
        error: "The file has more than 100,000 rows: split it into files of at most 100,000 rows.",
      });
      expect(await readProductCsv(new TextEncoder().encode('URL handle,Title\nmug,"never closed\n'))).toMatchObject({
        ok: false,
        error: "Line 2: the file could not be read as CSV (a quoted cell is never closed).",
      });
      const outcome = await shop.services.productCsv.importFile(OPERATOR, { name: "big.csv", bytes: latin1 });
      expect(outcome).toMatchObject({
        ok: false,
        report: { fileError: "The file is not UTF-8 text: save it as “CSV UTF-8” and try again." },
      });
    },
  );
});

describe("CSV injection", () => {
  it("writes a cell that a spreadsheet would run with a leading apostrophe, and an import drops it again", () => {
    for (const cell of ["=SUM(A1:A2)", "+1 Cable", "-sale", "@mention"]) {
      expect(neutraliseFormula(cell)).toBe(`'${cell}`);
      expect(undoNeutralisedFormula(neutraliseFormula(cell))).toBe(cell);
    }
    for (const cell of ["-3", "-12.50", "Mug", "", "'quoted"])
      expect(undoNeutralisedFormula(neutraliseFormula(cell))).toBe(cell);
    expect(neutraliseFormula("-3")).toBe("-3");
  });
});
