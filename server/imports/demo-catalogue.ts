import { readFileSync } from "node:fs";
import { createPictureStore } from "../admin/picture-store";
import { createCatalogueService } from "../catalogue/catalogue-service";
import type { DB } from "../db/client";
import { createDepartmentService } from "../departments/department-service";
import { createCatalogueImport } from "./catalogue-import";
import { DEMO_PRODUCTS } from "./demo-catalogue-data";

/** Who the audit log says imported the demo catalogue. */
const DEMO_ACTOR = { id: null, email: "npm run demo-catalogue" };

/**
 * Adds the demo catalogue (or, with `remove`, takes it away) through the catalogue import: sixty unfeatured products
 * in the seeded departments, pictures from `picturesDir` ({id}.webp). Running it again updates the same products; the
 * home page keeps its six.
 */
export async function applyDemoCatalogue(db: DB, { remove, picturesDir }: { remove: boolean; picturesDir: string }): Promise<string> {
  const catalogue = createCatalogueService(db);
  const departments = createDepartmentService(db, catalogue);
  const importer = createCatalogueImport(db, catalogue, createPictureStore(db), departments);
  if (remove) {
    const removed = await importer.removeProducts(DEMO_ACTOR, DEMO_PRODUCTS.map((product) => product.id));
    return `Removed ${removed} demo products.`;
  }
  const outcome = await importer.importProducts(
    DEMO_ACTOR,
    DEMO_PRODUCTS.map((product) => ({ ...product, picture: readFileSync(`${picturesDir}/${product.id}.webp`) })),
  );
  return `Demo catalogue: ${outcome.created} products added, ${outcome.updated} already there (updated).`;
}
