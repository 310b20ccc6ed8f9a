import { beforeAll, expect, it } from "vitest";
import type { Actor } from "#server/audit/audit-log";
import { NO_PICTURE } from "#server/catalogue/catalogue-data";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { DEFAULT_LISTING_STATE } from "#shared/listing";

/** Stars from someone who gave them, and "Low stock" counted per variant against its own "Low stock at". */
const OPERATOR: Actor = { id: null, email: "ratings@example.com" };
const SLOW = { timeout: 120_000 };
const csvFile = (text: string) => ({ name: "ratings.csv", bytes: new TextEncoder().encode(text) });

const RATED_CSV = [
  "URL handle,Title,Price,Status,Rating (product.metafields.reviews.rating),Rating count (product.metafields.reviews.rating_count)",
  'rated-lamp,Rated Lamp,10.00,active,"{""value"": ""4.3"", ""scale_min"": ""1.0"", ""scale_max"": ""5.0""}",12',
  "uncounted-lamp,Uncounted Lamp,11.00,active,5,",
  "plain-lamp,Plain Lamp,12.00,active,,",
].join("\n");

describeEachDatabase("true ratings and low stock", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
  }, SLOW.timeout);

  const search = async (query: string, stars: 1 | 2 | 3 | 4 | null = null) =>
    (await shop.services.catalogue.search(query, { ...DEFAULT_LISTING_STATE, stars })).products;

  it("keeps the specification's six ratings without a count, and gives a console product no stars", SLOW, async () => {
    const seeded = await search("");
    const startup = seeded.find((product) => product.id === "12321341")!;
    expect(startup).toMatchObject({ rating: 5, ratingCount: 0 });

    const created = await shop.services.catalogue.createProduct({
      title: "Unrated Kettle",
      description: "Boils water.",
      priceCents: 25_00,
      status: "active",
      featuredPosition: null,
      image: { src: NO_PICTURE.src, width: NO_PICTURE.width, height: NO_PICTURE.height, srcSet: "" },
    });
    expect(created.rating).toBeNull();
    const [found] = await search("Unrated Kettle");
    expect(found).toMatchObject({ title: "Unrated Kettle", rating: null, ratingCount: 0 });
    expect(await search("Unrated Kettle", 1)).toEqual([]);
  });

  it("imports a rating only with its count, decimals kept, and a product without one gets none", SLOW, async () => {
    const imported = await shop.services.productCsv.importFile(OPERATOR, csvFile(RATED_CSV));
    expect(imported.ok).toBe(true);
    const lamps = await search("lamp");
    const byTitle = Object.fromEntries(lamps.map((product) => [product.title, product]));
    expect(byTitle["Rated Lamp"]).toMatchObject({ rating: 4.3, ratingCount: 12 });
    expect(byTitle["Uncounted Lamp"]).toMatchObject({ rating: null, ratingCount: 0 });
    expect(byTitle["Plain Lamp"]).toMatchObject({ rating: null, ratingCount: 0 });
    // "4 Stars & Up" finds the rated one alone; sorting by reviews puts the unrated ones last.
    expect((await search("lamp", 4)).map((product) => product.title)).toEqual(["Rated Lamp"]);
    const byReview = (await shop.services.catalogue.search("lamp", { ...DEFAULT_LISTING_STATE, sort: "review" }))
      .products;
    expect(byReview[0]!.title).toBe("Rated Lamp");
  });

  it("counts low stock per variant, each against its own Low stock at", SLOW, async () => {
    const db = getDatabase().db;
    const before = await shop.services.adminProducts.countLowStock();
    const created = await shop.services.catalogue.createProduct({
      title: "Keyboard Layouts",
      description: "Keys.",
      priceCents: 40_00,
      status: "active",
      featuredPosition: null,
      image: { src: NO_PICTURE.src, width: NO_PICTURE.width, height: NO_PICTURE.height, srcSet: "" },
    });
    const variants = await db.transaction().execute(async (trx) => {
      const ids = await shop.services.catalogue.saveOptionsAndVariants(trx, created.id, 40_00, {
        options: [{ name: "Layout", values: ["UK", "US", "DE"] }],
        variants: ["UK", "US", "DE"].map((layout) => ({
          key: layout,
          optionValues: [layout],
          sku: null,
          priceCents: null,
          compareAtCents: null,
          tracksStock: true,
          continueSelling: false,
          weightGrams: 0,
          removePicture: false,
        })),
      });
      // UK: 3 left, low at 5 (the default); US: 3 left, low at 2; DE: 20 left, low at 25.
      for (const [layout, onHand, lowStockAt] of [
        ["UK", 3, undefined],
        ["US", 3, 2],
        ["DE", 20, 25],
      ] as const) {
        await shop.services.inventory.setStock(
          trx,
          ids.get(layout)!,
          { tracksStock: true, continueSelling: false, onHand, ...(lowStockAt === undefined ? {} : { lowStockAt }) },
          OPERATOR.email,
        );
      }
      return ids;
    });
    expect(variants.size).toBe(3);
    expect(await shop.services.adminProducts.countLowStock()).toBe(before + 2);
    const low = await shop.services.adminProducts.listProducts({
      query: "Keyboard Layouts",
      status: "active",
      page: 1,
      stock: "low",
    });
    expect(low.products.map((product) => product.title)).toEqual(["Keyboard Layouts"]);
    expect(low.lowVariants).toBe(2);
  });
});
