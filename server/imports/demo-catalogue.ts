// Loading the demo catalogue: its products written as a CSV and put through the console's own import, pictures
// included.

import { readFileSync } from "node:fs";
import { stringify } from "csv-stringify/sync";
import { recordAudit } from "#server/audit/audit-log";
import { createPictureStore } from "#server/pictures/picture-store";
import { createCatalogueService } from "#server/catalogue/catalogue-service";
import type { DB } from "#server/db/client";
import { createDepartmentService } from "#server/departments/department-service";
import { createInventoryService } from "#server/inventory/inventory-service";
import { createLogger } from "#server/logger";
import { combinations } from "#shared/admin-schemas";
import { PRODUCT_EXPORT_COLUMNS } from "./product-csv-layout";
import { createProductCsvImport } from "./product-csv-import";
import { colourPictureId, DEMO_PRODUCTS, demoColours, type DemoProduct } from "./demo-catalogue-data";

/** Who the audit log says imported the demo catalogue. */
const DEMO_ACTOR = { id: null, email: "npm run demo-catalogue" };
/** The rating columns of Shopify's product CSV (its standard metafields), which the import reads beside the layout:
 * a rating is kept only with its count. */
const RATING_COLUMN = "Rating (product.metafields.reviews.rating)";
const RATING_COUNT_COLUMN = "Rating count (product.metafields.reviews.rating_count)";
/** The host the file names the stored pictures under: the import reads a picture the shop holds by its path alone. */
const PICTURE_HOST = "http://demo-catalogue.invalid";

/** A demo product's URL handle: its id without the prefix that keeps the pictures' file names apart. */
export function demoHandle(product: Pick<DemoProduct, "id">): string {
  return product.id.replace(/^demo-/, "");
}

/** The demo catalogue as a product CSV in Shopify's current layout: one row per variant, the product's fields first. */
function demoCsv(pictureSrc: ReadonlyMap<string, string>, departmentPaths: ReadonlyMap<string, string>): string {
  const header = [...PRODUCT_EXPORT_COLUMNS, RATING_COLUMN, RATING_COUNT_COLUMN];
  const rows = DEMO_PRODUCTS.flatMap((product) =>
    combinations(product.options ?? []).map((values, index) => {
      const cells: Record<string, string> = {
        "URL handle": demoHandle(product),
        "Option1 value": values[0] ?? "",
        "Option2 value": values[1] ?? "",
        "Option3 value": values[2] ?? "",
        Price: (product.priceCents / 100).toFixed(2),
        "Inventory tracker": product.stock === undefined ? "" : "shopify",
        "Inventory quantity": product.stock === undefined ? "" : String(product.stock),
        "Continue selling when out of stock": "DENY",
      };
      if (index === 0) {
        const names = (product.options ?? []).map((option) => option.name);
        Object.assign(cells, {
          Title: product.title,
          Description: product.description
            .split("\n\n")
            .map((paragraph) => `<p>${paragraph}</p>`)
            .join(""),
          Status: "active",
          "Option1 name": names[0] ?? "",
          "Option2 name": names[1] ?? "",
          "Option3 name": names[2] ?? "",
          "Product image URL": `${PICTURE_HOST}${pictureSrc.get(product.id)}`,
          Departments: product.departmentSlugs.map((slug) => departmentPaths.get(slug) ?? slug).join(";"),
          [RATING_COLUMN]: String(product.rating),
          [RATING_COUNT_COLUMN]: String(product.ratingCount),
        });
      }
      return header.map((column) => cells[column] ?? "");
    }),
  );
  return stringify([header, ...rows]);
}

/**
 * Adds the demo catalogue (or, with `remove`, takes it away) the way an operator would: its pictures stored as the
 * console stores an upload, then one product CSV through the console's own import (options, variants, stock and
 * departments included), so that the demo shows what an import does. Running it again changes nothing; the home page
 * keeps its six, as imported products are never featured.
 */
export async function applyDemoCatalogue(
  db: DB,
  { remove, picturesDir }: { remove: boolean; picturesDir: string },
): Promise<string> {
  const catalogue = createCatalogueService(db);
  const departments = createDepartmentService(db, catalogue);
  const handles = DEMO_PRODUCTS.map(demoHandle);
  if (remove) {
    const present = await db
      .selectFrom("products")
      .select(["id", "slug", "title"])
      .where("slug", "in", handles)
      .execute();
    const removed = await catalogue.deleteProducts(present.map((row) => row.id));
    for (const row of present)
      await recordAudit(db, DEMO_ACTOR, {
        action: "product.remove",
        subject: row.id,
        before: { title: row.title },
        after: null,
      });
    return `Removed ${removed} demo products.`;
  }
  const pictures = createPictureStore(db);
  const pictureSrc = new Map<string, string>();
  for (const product of DEMO_PRODUCTS)
    pictureSrc.set(product.id, (await pictures.storePicture(readFileSync(`${picturesDir}/${product.id}.webp`))).src);
  const inventory = createInventoryService(db, createLogger("warn"));
  // Every picture is one the shop now holds, so the import fetches none.
  const importer = createProductCsvImport({ db, catalogue, departments, inventory, onPicturesQueued: () => undefined });
  // The file names departments as the console shows them ("Computers > Monitors"), as an operator's file would.
  const departmentPaths = new Map<string, string>();
  for (const top of await departments.listTree()) {
    departmentPaths.set(top.slug, top.name);
    for (const child of top.children) departmentPaths.set(child.slug, `${top.name} > ${child.name}`);
  }
  const csv = demoCsv(pictureSrc, departmentPaths);
  const applied = await importer.importFile(DEMO_ACTOR, {
    name: "demo-catalogue.csv",
    bytes: new TextEncoder().encode(csv),
  });
  if (!applied.ok) {
    const problems = applied.report.products.flatMap((product) => product.reasons);
    throw new Error(
      `The demo catalogue could not be imported: ${[applied.report.fileError, ...problems].filter(Boolean).join(" ")}`,
    );
  }
  const coloured = await giveColoursTheirPictures(db, catalogue, picturesDir);
  const { created, updated, unchanged } = applied.report.counts;
  return (
    `Demo catalogue: ${created} products added, ${updated + unchanged} already there (${updated} updated)` +
    (coloured > 0 ? `; ${coloured} colour variants given their pictures.` : ".")
  );
}

/**
 * Each demo product sold in colours shows a picture of that colour while it is chosen: the variant's own picture, as
 * an operator sets one in the console's product form (a product CSV carries one picture per product). Each change
 * is in the audit log as the console's would be. Returns how many variants changed.
 */
async function giveColoursTheirPictures(
  db: DB,
  catalogue: ReturnType<typeof createCatalogueService>,
  picturesDir: string,
): Promise<number> {
  const pictures = createPictureStore(db);
  let changed = 0;
  for (const product of DEMO_PRODUCTS) {
    const colours = demoColours(product);
    if (!colours) continue;
    const page = await catalogue.findProductPage(demoHandle(product));
    if (page.kind !== "product") continue;
    const wanted: { variantId: string; image: Awaited<ReturnType<typeof pictures.storePicture>>; colour: string }[] =
      [];
    for (const colour of colours.values) {
      const image = await pictures.storePicture(
        readFileSync(`${picturesDir}/${colourPictureId(product, colour)}.webp`),
      );
      for (const variant of page.product.variants)
        if (variant.optionValues[colours.index] === colour) wanted.push({ variantId: variant.id, image, colour });
    }
    const ids = new Set(await catalogue.setVariantPictures(wanted));
    for (const { variantId, image } of wanted.filter((entry) => ids.has(entry.variantId))) {
      const variant = page.product.variants.find((candidate) => candidate.id === variantId)!;
      await recordAudit(db, DEMO_ACTOR, {
        action: "product.update",
        subject: page.product.id,
        before: { [`variant ${variant.optionValues.join(" / ")}`]: { picture: variant.image?.src ?? null } },
        after: { [`variant ${variant.optionValues.join(" / ")}`]: { picture: image.src } },
      });
    }
    changed += ids.size;
  }
  return changed;
}
