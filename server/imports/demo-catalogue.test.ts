import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createCatalogueService } from "#server/catalogue/catalogue-service";
import { createDepartmentService } from "#server/departments/department-service";
import { describeEachDatabase } from "#server/testing/test-database";
import { DEFAULT_LISTING_STATE } from "#shared/listing";
import { applyDemoCatalogue, demoHandle } from "./demo-catalogue";
import { combinations } from "#shared/admin-schemas";
import { colourPictureId, DEMO_PRODUCTS, demoColours } from "./demo-catalogue-data";

const picturesDir = fileURLToPath(new URL("../../images/demo", import.meta.url));

describeEachDatabase("demo catalogue", (getDatabase) => {
  it("adds about sixty unfeatured products, at least 8 in every top-level department, again without duplicates, and takes them away", async () => {
    const { db } = getDatabase();
    const catalogue = createCatalogueService(db);
    const departments = createDepartmentService(db, catalogue);
    const featuredBefore = (await catalogue.listProducts()).map((product) => product.id);

    const colourVariants = DEMO_PRODUCTS.reduce(
      (sum, product) => sum + (demoColours(product) ? combinations(product.options!).length : 0),
      0,
    );
    expect(await applyDemoCatalogue(db, { remove: false, picturesDir })).toBe(
      `Demo catalogue: ${DEMO_PRODUCTS.length} products added, 0 already there (0 updated); ${colourVariants} colour variants given their pictures.`,
    );
    expect(await applyDemoCatalogue(db, { remove: false, picturesDir })).toBe(
      `Demo catalogue: 0 products added, ${DEMO_PRODUCTS.length} already there (0 updated).`,
    );
    const everything = { ...DEFAULT_LISTING_STATE, includeOutOfStock: true };
    for (const top of await departments.listTree()) {
      const listing = await catalogue.listDepartment([top.id, ...top.children.map((child) => child.id)], everything);
      expect(listing.total - top.children.length, top.slug).toBeGreaterThanOrEqual(8);
    }
    expect((await catalogue.search("", everything)).total).toBe(6 + DEMO_PRODUCTS.length);
    // Through the CSV import: options, variants, stock and ratings as the demo data gives them; the sold-out one hidden by default.
    const soldOut = DEMO_PRODUCTS.filter((product) => product.stock === 0);
    expect(soldOut.length).toBeGreaterThan(0);
    expect((await catalogue.search("", DEFAULT_LISTING_STATE)).total).toBe(6 + DEMO_PRODUCTS.length - soldOut.length);
    const mouse = DEMO_PRODUCTS.find((product) => product.options?.length === 2)!;
    const page = await catalogue.findProductPage(demoHandle(mouse));
    expect(page.kind).toBe("product");
    const found = await db
      .selectFrom("products")
      .select(["id", "rating"])
      .where("slug", "=", demoHandle(mouse))
      .executeTakeFirstOrThrow();
    expect(found.rating).toBe(mouse.rating);
    const variants = await db
      .selectFrom("product_variants")
      .select(["option_values", "tracks_stock", "on_hand"])
      .where("product_id", "=", found.id)
      .orderBy("position")
      .execute();
    expect(variants.map((variant) => variant.option_values)).toEqual([
      ["Black", "M"],
      ["Black", "L"],
      ["White", "M"],
      ["White", "L"],
    ]);
    expect(variants.every((variant) => variant.tracks_stock && variant.on_hand === mouse.stock)).toBe(true);
    const sizes = (await catalogue.search("", DEFAULT_LISTING_STATE)).optionFacets.find(
      (facet) => facet.name === "Size",
    );
    expect(sizes?.values.map((entry) => entry.value)).toEqual(expect.arrayContaining(["M", "L", "XL"]));
    expect((await createCatalogueService(db).listProducts()).map((product) => product.id)).toEqual(featuredBefore);

    expect(await applyDemoCatalogue(db, { remove: true, picturesDir })).toBe(
      `Removed ${DEMO_PRODUCTS.length} demo products.`,
    );
    expect((await createCatalogueService(db).search("", DEFAULT_LISTING_STATE)).total).toBe(6);
  }, 180_000);

  it("ships a picture for every demo product and each colour it is sold in, each a WebP under 40 KB", () => {
    const files = readdirSync(picturesDir);
    for (const product of DEMO_PRODUCTS) {
      expect(files).toContain(`${product.id}.webp`);
      for (const colour of demoColours(product)?.values ?? [])
        expect(files).toContain(`${colourPictureId(product, colour)}.webp`);
    }
    for (const file of files) expect(statSync(`${picturesDir}/${file}`).size, file).toBeLessThan(40_000);
  });
});
