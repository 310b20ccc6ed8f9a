import { expect, it, vi } from "vitest";
import { sql } from "kysely";
import { describeEachDatabase } from "#server/testing/test-database";
import { migrateToLatest, migrationNames } from "#server/db/migrate";
import { createTestShop } from "#server/testing/test-app";
import { catalogue as specProducts } from "./catalogue-data";
import { CATALOGUE_VERSION_CHECK_MS, createCatalogueService, seedCatalogue } from "./catalogue-service";

const ECHO = "23445930";

describeEachDatabase("catalogue", (getDatabase) => {
  /** Puts a product back as the shop seeds it, after a test that edited it. */
  async function restore(id: string) {
    const entry = specProducts.find((product) => product.id === id)!;
    const index = specProducts.indexOf(entry);
    await createCatalogueService(getDatabase().db).updateProduct(id, {
      slug: entry.slug,
      title: entry.title,
      priceCents: entry.priceCents,
      status: "active",
      featuredPosition: index + 1,
    });
    await getDatabase().db.deleteFrom("product_slug_history").execute();
  }

  it("lists the six seeded products in shelf order with integer-cent prices, slugs and descriptions", async () => {
    const catalogue = createCatalogueService(getDatabase().db);
    const products = await catalogue.listProducts();
    expect(products.map((product) => product.id)).toEqual([
      "12321341",
      "49538094",
      "4903850",
      "23445930",
      "3254354345",
      "90829332",
    ]);
    expect(products[5]).toMatchObject({
      slug: "samsung-49-inch-curved-gaming-monitor-dual-wqhd",
      title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
      priceCents: 109498,
      rating: 4,
      image: { src: "/images/products/90829332.webp", width: 400, height: 400 },
    });
    const page = await catalogue.findProductPage("the-lean-startup");
    expect(page.kind === "product" && page.product.description).toMatch(/^Eric Ries's handbook[^]*\n\n.*336 pages\.$/);
  });

  it("finds products by id and leaves unknown ids out", async () => {
    const found = await createCatalogueService(getDatabase().db).findProducts([ECHO, "nope", ECHO]);
    expect([...found.keys()]).toEqual([ECHO]);
    expect(found.get(ECHO)?.priceCents).toBe(9899);
  });

  it("serves an edit at once on the instance that made it, and within a second on another instance", async () => {
    const { db } = getDatabase();
    let clock = 0;
    const editing = createCatalogueService(db, { now: () => clock });
    const other = createCatalogueService(db, { now: () => clock });
    const priceOn = async (instance: typeof other) => (await instance.getProduct(ECHO))?.priceCents;
    expect([await priceOn(editing), await priceOn(other)]).toEqual([9899, 9899]);
    try {
      await editing.updateProduct(ECHO, { priceCents: 10_099 });
      expect(await priceOn(editing)).toBe(10_099);
      clock = CATALOGUE_VERSION_CHECK_MS - 1;
      expect(await priceOn(other)).toBe(9899);
      clock = CATALOGUE_VERSION_CHECK_MS;
      expect(await priceOn(other)).toBe(10_099);
      expect((await other.listProducts()).find((product) => product.id === ECHO)?.priceCents).toBe(10_099);
    } finally {
      await restore(ECHO);
    }
  });

  it("keeps a product page per catalogue version: the same page for every shopper, a changed price within a second", async () => {
    const { db } = getDatabase();
    let clock = 0;
    const catalogue = createCatalogueService(db, { now: () => clock });
    const first = await catalogue.productPage("amazon-echo-3rd-generation");
    expect(first.kind === "product" && first.product.priceCents).toBe(9899);
    expect(first.kind === "product" && first.firstReviews).toEqual({ reviews: [], hasNext: false });
    // Kept: the next shopper's page is the same object, read once.
    expect(await catalogue.productPage("amazon-echo-3rd-generation")).toBe(first);
    await db.updateTable("products").set({ price_cents: 10_099 }).where("id", "=", ECHO).execute();
    try {
      clock = CATALOGUE_VERSION_CHECK_MS;
      const changed = await catalogue.productPage("amazon-echo-3rd-generation");
      expect(changed).not.toBe(first);
      expect(changed.kind === "product" && changed.product.priceCents).toBe(10_099);
      expect(await catalogue.productPage("no-such-product")).toEqual({ kind: "unknown" });
    } finally {
      await restore(ECHO);
    }
  });

  it("serves a price changed by hand in the database within a second, the home page and baskets alike", async () => {
    const { db } = getDatabase();
    let clock = 0;
    const catalogue = createCatalogueService(db, { now: () => clock });
    expect((await catalogue.getProduct(ECHO))?.priceCents).toBe(9899);
    expect((await catalogue.listProducts()).find((product) => product.id === ECHO)?.priceCents).toBe(9899);
    await db.updateTable("products").set({ price_cents: 10_099 }).where("id", "=", ECHO).execute();
    try {
      clock = CATALOGUE_VERSION_CHECK_MS;
      expect((await catalogue.getProduct(ECHO))?.priceCents).toBe(10_099);
      expect((await catalogue.listProducts()).find((product) => product.id === ECHO)?.priceCents).toBe(10_099);
    } finally {
      await restore(ECHO);
    }
  });

  it("shows a price edited on one shop on another shop on the same database within 5 seconds", async () => {
    const { db } = getDatabase();
    const [editing, other] = [await createTestShop(getDatabase()), await createTestShop(getDatabase())];
    expect((await other.services.catalogue.getProduct(ECHO))?.priceCents).toBe(9899);
    const editedAt = performance.now();
    try {
      await editing.services.catalogue.updateProduct(ECHO, { priceCents: 8_999 });
      await vi.waitFor(async () => expect((await other.services.catalogue.getProduct(ECHO))?.priceCents).toBe(8_999), {
        timeout: 5_000,
        interval: 50,
      });
      expect(performance.now() - editedAt).toBeLessThan(5_000);
    } finally {
      await restore(ECHO);
    }
    expect(
      (await db.selectFrom("products").select("price_cents").where("id", "=", ECHO).executeTakeFirstOrThrow())
        .price_cents,
    ).toBe(9899);
  });

  it("keeps an operator's edits when the shop restarts: start-up seeds only an empty catalogue", async () => {
    const { db } = getDatabase();
    const before = await createTestShop(getDatabase());
    await before.services.catalogue.updateProduct(ECHO, { priceCents: 12_345, title: "Amazon Echo, Charcoal" });
    try {
      // A new shop on the same database: migrations and the seed run again, as at every start.
      const restarted = await createTestShop(getDatabase());
      expect(await restarted.services.catalogue.getProduct(ECHO)).toMatchObject({
        priceCents: 12_345,
        title: "Amazon Echo, Charcoal",
        slug: "amazon-echo-charcoal",
      });
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from products`.execute(db);
      expect(rows[0]?.count).toBe(6);
    } finally {
      await restore(ECHO);
    }
  });

  it("hides an archived product from the home page, baskets and its page, which says it is no longer available", async () => {
    const { db } = getDatabase();
    const catalogue = createCatalogueService(db);
    await catalogue.updateProduct(ECHO, { status: "archived" });
    try {
      expect((await catalogue.listProducts()).map((product) => product.id)).not.toContain(ECHO);
      expect(await catalogue.getProduct(ECHO)).toBeUndefined();
      expect(await catalogue.findProductPage("amazon-echo-3rd-generation")).toEqual({
        kind: "archived",
        title: "Amazon Echo (3rd generation), Smart speaker with Alexa, Charcoal Fabric",
      });
    } finally {
      await restore(ECHO);
    }
  });

  it("moves a product to a new slug with its title, and its old slugs lead to the new one", async () => {
    const catalogue = createCatalogueService(getDatabase().db);
    try {
      const renamed = await catalogue.updateProduct(ECHO, { title: "Amazon Echo Smart Speaker" });
      expect(renamed.slug).toBe("amazon-echo-smart-speaker");
      await catalogue.updateProduct(ECHO, { title: "Amazon Echo (4th generation)" });
      expect(await catalogue.findProductPage("amazon-echo-3rd-generation")).toEqual({
        kind: "moved",
        slug: "amazon-echo-4th-generation",
      });
      expect(await catalogue.findProductPage("amazon-echo-smart-speaker")).toEqual({
        kind: "moved",
        slug: "amazon-echo-4th-generation",
      });
      expect(await catalogue.findProductPage("amazon-echo-4th-generation")).toMatchObject({
        kind: "product",
        product: { id: ECHO },
      });
      // A title another product's slug already has: the slug is made unique with the id.
      const clash = await catalogue.updateProduct(ECHO, { title: "The Lean Startup" });
      expect(clash.slug).toBe(`the-lean-startup-${ECHO}`);
      expect(await catalogue.findProductPage("no-such-product")).toEqual({ kind: "unknown" });
    } finally {
      await restore(ECHO);
    }
    expect(await catalogue.findProductPage("amazon-echo-3rd-generation")).toMatchObject({ kind: "product" });
  });

  it("can migrate and seed again without changing anything (a second instance starting)", async () => {
    const { db } = getDatabase();
    await Promise.all([migrateToLatest(db), migrateToLatest(db)]);
    await Promise.all([seedCatalogue(db), seedCatalogue(db)]);
    const { rows } = await sql<{ count: number }>`select count(*)::int as count from products`.execute(db);
    expect(rows[0]?.count).toBe(6);
    const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    expect(migrations.rows.map((row) => row.name)).toEqual(migrationNames);
  });

  it("lists the newest unfeatured products for the home page's second row, at most 12, until the catalogue changes", async () => {
    const { db } = getDatabase();
    let clock = 0;
    const catalogue = createCatalogueService(db, { now: () => clock });
    const other = createCatalogueService(db, { now: () => clock });
    expect(await catalogue.listMoreToExplore()).toEqual([]);
    const made: string[] = [];
    const make = async (n: number, changes: { status?: "active" | "archived"; featuredPosition?: number | null }) => {
      const { id } = await catalogue.createProduct({
        title: `Explorer lamp ${n}`,
        description: "A lamp.",
        priceCents: 1_000 + n,
        status: "active",
        featuredPosition: null,
        image: { src: "/images/lamp.webp", width: 400, height: 400, srcSet: "/images/lamp.webp 400w" },
        ...changes,
      });
      made.push(id);
    };
    try {
      for (let n = 1; n <= 14; n++) await make(n, {});
      await make(15, { status: "archived" });
      await make(16, { featuredPosition: 7 });
      const titles = (await catalogue.listMoreToExplore()).map((product) => product.title);
      expect(titles).toEqual(Array.from({ length: 12 }, (_, i) => `Explorer lamp ${14 - i}`));
      expect((await catalogue.listProducts()).map((product) => product.title)).toContain("Explorer lamp 16");

      // Kept until the catalogue changes: another instance's addition reaches this one's row with its version check.
      expect((await other.listMoreToExplore())[0]?.title).toBe("Explorer lamp 14");
      await make(17, {});
      expect((await catalogue.listMoreToExplore())[0]?.title).toBe("Explorer lamp 17");
      expect((await other.listMoreToExplore())[0]?.title).toBe("Explorer lamp 14");
      clock += CATALOGUE_VERSION_CHECK_MS;
      expect((await other.listMoreToExplore())[0]?.title).toBe("Explorer lamp 17");
    } finally {
      await catalogue.deleteProducts(made);
      clock += CATALOGUE_VERSION_CHECK_MS;
    }
    expect(await catalogue.listMoreToExplore()).toEqual([]);
  });

  it("refuses a product that breaks the table's rules", async () => {
    const { db } = getDatabase();
    const valid = {
      id: "x",
      slug: "x",
      title: "Bad",
      price_cents: 100,
      rating: 3,
      image: "/x.svg",
      image_width: 1,
      image_height: 1,
      featured_position: null,
    };
    for (const broken of [{ price_cents: -1 }, { rating: 6 }, { slug: "Not A Slug" }, { slug: "the-lean-startup" }]) {
      await expect(
        db
          .insertInto("products")
          .values({ ...valid, ...broken })
          .execute(),
      ).rejects.toThrow();
    }
  });
});
