import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { createCatalogueService } from "../catalogue/catalogue-service";
import { createDepartmentService } from "../departments/department-service";
import { describeEachDatabase } from "../testing/test-database";
import { DEFAULT_LISTING_STATE } from "../../shared/listing";
import { applyDemoCatalogue } from "./demo-catalogue";
import { DEMO_PRODUCTS } from "./demo-catalogue-data";

const picturesDir = fileURLToPath(new URL("../../images/demo", import.meta.url));

describeEachDatabase("demo catalogue", (getDatabase) => {
  it("adds about sixty unfeatured products, at least 8 in every top-level department, again without duplicates, and takes them away", async () => {
    const { db } = getDatabase();
    const catalogue = createCatalogueService(db);
    const departments = createDepartmentService(db, catalogue);
    const featuredBefore = (await catalogue.listProducts()).map((product) => product.id);

    expect(await applyDemoCatalogue(db, { remove: false, picturesDir })).toBe(`Demo catalogue: ${DEMO_PRODUCTS.length} products added, 0 already there (updated).`);
    expect(await applyDemoCatalogue(db, { remove: false, picturesDir })).toBe(`Demo catalogue: 0 products added, ${DEMO_PRODUCTS.length} already there (updated).`);
    for (const top of await departments.listTree()) {
      const listing = await catalogue.listDepartment([top.id, ...top.children.map((child) => child.id)], DEFAULT_LISTING_STATE);
      expect(listing.total - top.children.length, top.slug).toBeGreaterThanOrEqual(8);
    }
    expect((await catalogue.search("", DEFAULT_LISTING_STATE)).total).toBe(6 + DEMO_PRODUCTS.length);
    expect((await createCatalogueService(db).listProducts()).map((product) => product.id)).toEqual(featuredBefore);

    expect(await applyDemoCatalogue(db, { remove: true, picturesDir })).toBe(`Removed ${DEMO_PRODUCTS.length} demo products.`);
    expect((await createCatalogueService(db).search("", DEFAULT_LISTING_STATE)).total).toBe(6);
  }, 120_000);

  it("ships a picture for every demo product, each a WebP under 40 KB", () => {
    const files = readdirSync(picturesDir);
    for (const product of DEMO_PRODUCTS) expect(files).toContain(`${product.id}.webp`);
    for (const file of files) expect(statSync(`${picturesDir}/${file}`).size, file).toBeLessThan(40_000);
  });
});
