import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_PICTURE_BYTES } from "#server/pictures/picture-store";
import { createPageShop } from "#server/testing/page-shop";
import { addDeliveryAddress, createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const OPERATOR = "owner@variants.test";
const PASSWORD = "violet tractor harbour pickle";

/**
 * Each variant's weight and picture, set in the console's product form (multipart, pages rendered by React Router as
 * in production): saved with the product and its audit entry, refused under the field with nothing saved, shown on
 * the product page for the chosen variant, and weighed by the shipping rates.
 */
describeEachDatabase("a variant's weight and picture in the console", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  type Browser = ReturnType<typeof createBrowser>;
  let operator: Browser;
  let productId = "";
  let productPicture: Buffer;
  let blue: Buffer;
  let red: Buffer;

  const html = (browser: Browser, path: string, init: RequestInit = {}) =>
    browser.send(path, {
      ...init,
      headers: { accept: "text/html", origin: "http://shop.test", ...Object.fromEntries(new Headers(init.headers)) },
    });
  const count = async (table: "audit_log" | "pictures") =>
    Number(
      (
        await getDatabase()
          .db.selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const variantRows = () =>
    getDatabase()
      .db.selectFrom("product_variants")
      .select(["id", "option_values", "weight_grams", "image", "image_width", "image_height", "image_srcset"])
      .where("product_id", "=", productId)
      .orderBy("position")
      .execute();
  /** The product's last audit entry: what the console's last save changed. */
  const latestAuditEntry = () =>
    getDatabase()
      .db.selectFrom("audit_log")
      .select(["action", "before", "after"])
      .where("subject", "=", productId)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
  const file = (bytes: Uint8Array, name: string, type: string) => new File([new Uint8Array(bytes)], name, { type });
  const noFile = () => new File([], "", { type: "application/octet-stream" });

  /** The form as the browser posts it: the product's fields, the Size option (S, M) and a row of inputs per size. */
  const productForm = (fields: Record<string, string> = {}, files: Record<string, File> = {}) => {
    const form = new FormData();
    const values: Record<string, string> = {
      title: "Variant Test Tee",
      description: "A tee.",
      price: "20.00",
      featuredPosition: "",
      status: "active",
      optionName1: "Size",
      optionValues1: "S, M",
      ...Object.fromEntries(
        ["S", "M"].flatMap((size) => [
          [`v:${size}:sku`, ""],
          [`v:${size}:price`, ""],
          [`v:${size}:compareAt`, ""],
          [`v:${size}:stock`, ""],
          [`v:${size}:stockWas`, ""],
          [`v:${size}:weight`, ""],
        ]),
      ),
      ...fields,
    };
    for (const [name, value] of Object.entries(values)) form.set(name, value);
    for (const name of ["picture", "v:S:picture", "v:M:picture"]) form.set(name, files[name] ?? noFile());
    return form;
  };
  const save = (form: FormData) =>
    html(operator, productId ? `/admin/products/${productId}` : "/admin/products/new", { method: "POST", body: form });

  beforeAll(async () => {
    shop = await createPageShop(getDatabase(), { operator: { email: OPERATOR, password: PASSWORD } });
    operator = createBrowser(shop.app);
    const signIn = await html(operator, "/login", {
      method: "POST",
      body: new URLSearchParams({ intent: "sign-in", email: OPERATOR, password: PASSWORD }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(signIn.status).toBe(302);
    const square = (r: number, g: number, b: number) =>
      sharp({ create: { width: 600, height: 600, channels: 3, background: { r, g, b } } });
    productPicture = await square(200, 200, 200).png().toBuffer();
    blue = await square(10, 40, 220).jpeg().toBuffer();
    red = await square(220, 30, 30).webp().toBuffer();
    const created = await save(productForm({}, { picture: file(productPicture, "tee.png", "image/png") }));
    expect(created.status).toBe(302);
    productId = /\/admin\/products\/([^?]+)\?saved/.exec(created.headers.get("location") ?? "")![1]!;
  }, 60_000);
  afterAll(() => shop.close());

  it("saves a weight and a picture for one variant, with its widths, in the audit log, and shows it for that variant on the product page", async () => {
    expect((await variantRows()).map((row) => [row.option_values, row.weight_grams, row.image])).toEqual([
      [["S"], 0, null],
      [["M"], 0, null],
    ]);
    const saved = await save(
      productForm(
        { "v:S:weight": "250", "v:M:weight": "1,500" },
        { "v:M:picture": file(blue, "blue.jpg", "image/jpeg") },
      ),
    );
    expect(saved.status).toBe(302);
    const [small, medium] = await variantRows();
    expect(small).toMatchObject({ weight_grams: 250, image: null });
    expect(medium).toMatchObject({ weight_grams: 1500, image_width: 400, image_height: 400 });
    expect(medium!.image).toMatch(/^\/pictures\/[a-f0-9]{32}\.webp$/);
    expect(medium!.image_srcset).toMatch(
      /^\/pictures\/[a-f0-9]{32}\.webp 200w, \/pictures\/[a-f0-9]{32}\.webp 400w, \/pictures\/[a-f0-9]{32}\.webp 600w$/,
    );
    expect((await operator.send(medium!.image!)).headers.get("content-type")).toBe("image/webp");

    const entry = await latestAuditEntry();
    const facts = { sku: null, price_cents: 2000, compare_at_cents: null, charge_tax: true };
    expect(entry).toEqual({
      action: "product.update",
      before: {
        "variant S": { ...facts, weight_grams: 0, image: null },
        "variant M": { ...facts, weight_grams: 0, image: null },
      },
      after: {
        "variant S": { ...facts, weight_grams: 250, image: null },
        "variant M": { ...facts, weight_grams: 1500, image: medium!.image },
      },
    });

    // The form shows the weights and the current picture, with "Remove picture" for that row only.
    const form = await (await html(operator, `/admin/products/${productId}`)).text();
    expect(form).toContain('value="1500"');
    expect(form).toContain(`src="${medium!.image}" alt="Current picture of M"`);
    expect(form).toContain('aria-label="Remove picture M"');
    expect(form).not.toContain('aria-label="Remove picture S"');

    // The product page with M chosen (a shared link, or the page without JavaScript) shows M's picture; S, the product's.
    const product = await getDatabase()
      .db.selectFrom("products")
      .select(["slug", "image"])
      .where("id", "=", productId)
      .executeTakeFirstOrThrow();
    const guest = createBrowser(shop.app);
    const pictureOf = async (variantId: string) => {
      const page = await (await html(guest, `/products/${product.slug}?variant=${variantId}`)).text();
      return /<img class="product-page__image" src="([^"]+)" srcSet="([^"]+)"/.exec(page)?.slice(1);
    };
    expect(await pictureOf(medium!.id)).toEqual([medium!.image, medium!.image_srcset]);
    expect((await pictureOf(small!.id))?.[0]).toBe(product.image);
  });

  it("refuses a negative, fractional or too large weight and a bad picture under the field, saving nothing", async () => {
    const before = await variantRows();
    const counts = await Promise.all([count("audit_log"), count("pictures")]);
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const tooBig = Buffer.concat([blue, Buffer.alloc(MAX_PICTURE_BYTES)]);
    const damaged = blue.subarray(0, 200);
    const refusals: [string, FormData, Record<string, string>][] = [
      ["a negative weight", productForm({ "v:S:weight": "-5" }), { "v:S:weight": "A weight can't be below zero." }],
      [
        "a fractional weight",
        productForm({ "v:S:weight": "2.5" }),
        { "v:S:weight": "Enter the weight in whole grams, like 250." },
      ],
      [
        "too large a weight",
        productForm({ "v:M:weight": "1000001" }),
        { "v:M:weight": "A weight is at most 1,000,000 g." },
      ],
      [
        "a weight in words",
        productForm({ "v:M:weight": "heavy" }),
        { "v:M:weight": "Enter the weight in whole grams, like 250." },
      ],
      // A good picture beside a refused one is not stored either.
      [
        "an SVG and a good picture",
        productForm(
          {},
          { "v:S:picture": file(svg, "s.png", "image/png"), "v:M:picture": file(red, "red.webp", "image/webp") },
        ),
        { "v:S:picture": "The picture must be a JPEG, PNG or WebP file." },
      ],
      [
        "a picture over 10 MB and a damaged one",
        productForm(
          {},
          {
            "v:S:picture": file(tooBig, "big.jpg", "image/jpeg"),
            "v:M:picture": file(damaged, "bad.jpg", "image/jpeg"),
          },
        ),
        {
          "v:S:picture": "The picture is larger than 10 MB.",
          "v:M:picture": "The picture could not be read: the file is damaged or not a picture.",
        },
      ],
      [
        "a new picture with Remove picture ticked",
        productForm({ "v:M:removePicture": "on" }, { "v:M:picture": file(red, "red.webp", "image/webp") }),
        { "v:M:picture": "Choose a new picture or tick Remove picture, not both." },
      ],
      [
        "a row input the form never has",
        productForm({ "v:M:colour": "red" }),
        { form: "The form was not understood. Reload the page and try again." },
      ],
    ];
    for (const [label, form, messages] of refusals) {
      const response = await save(form);
      expect(response.status, label).toBe(400);
      const page = await response.text();
      for (const [field, message] of Object.entries(messages)) {
        // Under its own field: the message's id is the one the input names in aria-describedby.
        if (field !== "form") expect(page, label).toContain(`aria-describedby="field-${field}-error"`);
        expect(page, label).toContain(message.replaceAll("'", "&#x27;"));
      }
    }
    expect(await variantRows()).toEqual(before);
    expect(await Promise.all([count("audit_log"), count("pictures")])).toEqual(counts);
  });

  it("weighs a basket by its variant's weight for the shipping rates", async () => {
    const { shipping } = shop.services;
    const standard = (await shipping.listZones())[0]!.methods[0]!;
    // Up to a kilogram $5.00; heavier, the method's $9.99.
    await shipping.updateMethod({ id: null, email: OPERATOR }, standard.id, {
      name: standard.name,
      estimate: "3-5 business days",
      priceCents: 999,
      freeOverCents: null,
      weightTiers: [{ upToGrams: 1000, priceCents: 500 }],
    });
    const [small, medium] = await variantRows();
    const totalFor = async (variantId: string) => {
      const shopper = createBrowser(shop.app);
      expect((await shopper.postJson("/basket/add", { productId, variantId })).status).toBe(201);
      await addDeliveryAddress(shopper);
      const answer = await shopper.send("/payments/create?total=1", { method: "POST" });
      expect(answer.status).toBe(409);
      return ((await answer.json()) as { error: { message: string } }).error.message;
    };
    // $20.00 each; no sales tax is set up.
    expect(await totalFor(small!.id)).toBe("The total has changed to $25.00. Please check it and pay again.");
    expect(await totalFor(medium!.id)).toBe("The total has changed to $29.99. Please check it and pay again.");
  });

  it("saves the weight of a product without options, typed beside its SKU", async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries({
      title: "Variant Test Kettle",
      description: "",
      price: "30",
      featuredPosition: "",
      status: "active",
      "v::sku": "KETTLE-1",
      "v::weight": "900",
      "v::stock": "",
      "v::stockWas": "",
    })) {
      form.set(name, value);
    }
    form.set("picture", file(productPicture, "kettle.png", "image/png"));
    const created = await html(operator, "/admin/products/new", { method: "POST", body: form });
    expect(created.status).toBe(302);
    const id = /\/admin\/products\/([^?]+)\?saved/.exec(created.headers.get("location") ?? "")![1]!;
    expect(
      await getDatabase()
        .db.selectFrom("product_variants")
        .select(["id", "sku", "weight_grams", "image"])
        .where("product_id", "=", id)
        .execute(),
    ).toEqual([{ id, sku: "KETTLE-1", weight_grams: 900, image: null }]);
    const page = await (await html(operator, `/admin/products/${id}`)).text();
    expect(page).toMatch(/<label for="field-v::weight">Weight \(g\)<\/label><input [^>]*name="v::weight" value="900"/);
  });

  it("removes a variant's picture (back to the product's), logged", async () => {
    const withPicture = (await variantRows())[1]!;
    expect(withPicture.image).not.toBeNull();
    const saved = await save(productForm({ "v:S:weight": "250", "v:M:weight": "1500", "v:M:removePicture": "on" }));
    expect(saved.status).toBe(302);
    expect((await variantRows())[1]).toMatchObject({
      id: withPicture.id,
      weight_grams: 1500,
      image: null,
      image_width: null,
      image_height: null,
      image_srcset: null,
    });
    const { before, after } = await latestAuditEntry();
    const facts = { sku: null, price_cents: 2000, compare_at_cents: null, charge_tax: true, weight_grams: 1500 };
    expect({ before, after }).toEqual({
      before: { "variant M": { ...facts, image: withPicture.image } },
      after: { "variant M": { ...facts, image: null } },
    });
  });

  it("logs a variant's new SKU, price and list price, and only that variant", async () => {
    const saved = await save(
      productForm({
        "v:S:weight": "250",
        "v:M:weight": "1500",
        "v:S:sku": "TEE-S",
        "v:S:price": "24.00",
        "v:S:compareAt": "30.00",
      }),
    );
    expect(saved.status).toBe(302);
    const entry = await latestAuditEntry();
    const unchanged = { charge_tax: true, weight_grams: 250, image: null };
    expect(entry).toEqual({
      action: "product.update",
      before: { "variant S": { ...unchanged, sku: null, price_cents: 2000, compare_at_cents: null } },
      after: { "variant S": { ...unchanged, sku: "TEE-S", price_cents: 2400, compare_at_cents: 3000 } },
    });
  });
});
