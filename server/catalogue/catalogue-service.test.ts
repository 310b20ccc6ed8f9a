import { expect, it } from "vitest";
import { sql } from "kysely";
import { describeEachDatabase } from "../testing/test-database";
import { migrateToLatest, migrationNames } from "../db/migrate";
import { createCatalogueService, seedCatalogue } from "./catalogue-service";

describeEachDatabase("catalogue", (getDatabase) => {
  it("lists the six seeded products in shelf order with integer-cent prices", async () => {
    const products = await createCatalogueService(getDatabase().db).listProducts();
    expect(products.map((product) => product.id)).toEqual([
      "12321341",
      "49538094",
      "4903850",
      "23445930",
      "3254354345",
      "90829332",
    ]);
    expect(products[5]).toMatchObject({
      title: "Samsung LC49RG90SSUXEN 49' Curved LED Gaming Monitor - Super Ultra Wide Dual WQHD 5120 x 1440",
      priceCents: 109498,
      rating: 4,
      image: { src: "/images/products/90829332.webp", width: 400, height: 400 },
    });
  });

  it("finds products by id and leaves unknown ids out", async () => {
    const found = await createCatalogueService(getDatabase().db).findProducts(["23445930", "nope", "23445930"]);
    expect([...found.keys()]).toEqual(["23445930"]);
    expect(found.get("23445930")?.priceCents).toBe(9899);
  });

  it("serves a price changed in the database once its short cache has run out, never a mix", async () => {
    const { db } = getDatabase();
    let clock = 0;
    const catalogue = createCatalogueService(db, { cacheMs: 5_000, now: () => clock });
    const priceOf = async (id: string) => (await catalogue.findProducts([id])).get(id)?.priceCents;
    expect(await priceOf("23445930")).toBe(9899);
    await db.updateTable("products").set({ price_cents: 10_099 }).where("id", "=", "23445930").execute();
    try {
      clock = 4_999;
      expect(await priceOf("23445930")).toBe(9899);
      expect((await catalogue.listProducts()).find((product) => product.id === "23445930")?.priceCents).toBe(9899);
      clock = 5_000;
      expect(await priceOf("23445930")).toBe(10_099);
      expect((await catalogue.listProducts()).find((product) => product.id === "23445930")?.priceCents).toBe(10_099);
    } finally {
      await seedCatalogue(db);
    }
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

  it("refuses a product that breaks the table's rules", async () => {
    const { db } = getDatabase();
    await expect(
      db
        .insertInto("products")
        .values({ id: "x", title: "Bad", price_cents: -1, rating: 6, image: "/x.svg", image_width: 1, image_height: 1, position: 99 })
        .execute(),
    ).rejects.toThrow();
  });
});
