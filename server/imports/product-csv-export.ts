// The products CSV in Shopify's layout, a page of products at a time, so an import of the file gives back the same
// catalogue.

import { NO_PICTURE } from "#server/catalogue/catalogue-data";
import type { DB } from "#server/db/client";
import { departmentPath } from "#server/departments/department-service";
import { pictureUrl } from "#shared/shop-pictures";
import { csvBoolean, csvMoney } from "./csv-cells";
import { PRODUCT_EXPORT_COLUMNS } from "./product-csv-layout";

/** Products read at a time: one page's products, variants and departments are all the export holds. */
const EXPORT_PAGE_SIZE = 500;

/** Plain paragraphs as the HTML Shopify's Description holds: a paragraph each, a line break within one. */
export function paragraphsToHtml(text: string): string {
  const escape = (plain: string) =>
    plain.replace(/[&<>"]/g, (character) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[character]!);
  return text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => `<p>${escape(paragraph).replaceAll("\n", "<br>")}</p>`)
    .join("");
}

/**
 * Every product, archived ones too, as rows of Shopify's current product CSV (PRODUCT_EXPORT_COLUMNS): one row per
 * variant, the product's own fields on its first row; a product without options as Shopify writes one ("Title",
 * "Default Title"). Pictures by their full address at `origin` (the import keeps such an address as it is). Read a
 * page of products at a time by id, so the export's memory does not grow with the catalogue.
 */
export async function* productCsvRows(db: DB, { origin }: { origin: string }): AsyncGenerator<string[]> {
  const departments = await db.selectFrom("departments").select(["id", "name", "parent_id as parentId"]).execute();
  const pathOf = new Map(
    departments.map((department) => [department.id, departmentPath(department, departments).join(" > ")]),
  );
  let after: string | null = null;
  for (;;) {
    let page = db
      .selectFrom("products")
      .select(["id", "slug", "title", "description", "vendor", "product_type", "tags", "status", "image"])
      .orderBy("id")
      .limit(EXPORT_PAGE_SIZE);
    if (after !== null) page = page.where("id", ">", after);
    const products = await page.execute();
    if (products.length === 0) return;
    const ids = products.map((product) => product.id);
    const [options, variants, placements] = await Promise.all([
      db
        .selectFrom("product_options")
        .select(["product_id", "name"])
        .where("product_id", "in", ids)
        .orderBy("product_id")
        .orderBy("position")
        .execute(),
      db
        .selectFrom("product_variants")
        .select([
          "product_id",
          "option_values",
          "sku",
          "price_cents",
          "compare_at_cents",
          "charge_tax",
          "tracks_stock",
          "on_hand",
          "continue_selling",
          "weight_grams",
        ])
        .where("product_id", "in", ids)
        .orderBy("product_id")
        .orderBy("position")
        .orderBy("id")
        .execute(),
      db
        .selectFrom("product_departments")
        .select(["product_id", "department_id"])
        .where("product_id", "in", ids)
        .execute(),
    ]);
    for (const product of products) {
      const names = options.filter((option) => option.product_id === product.id).map((option) => option.name);
      const isWithoutOptions = names.length === 0;
      for (const [index, variant] of variants.filter((entry) => entry.product_id === product.id).entries()) {
        const isFirst = index === 0;
        const optionCells = [0, 1, 2].flatMap((position) =>
          isWithoutOptions
            ? position === 0
              ? [isFirst ? "Title" : "", "Default Title"]
              : ["", ""]
            : [isFirst ? (names[position] ?? "") : "", variant.option_values[position] ?? ""],
        );
        const productCell = (value: string) => (isFirst ? value : "");
        const departmentPaths = placements
          .filter((placement) => placement.product_id === product.id)
          .map((placement) => pathOf.get(placement.department_id) ?? "")
          .filter((path) => path !== "")
          .sort();
        const row: Record<(typeof PRODUCT_EXPORT_COLUMNS)[number], string> = {
          "URL handle": product.slug,
          Title: productCell(product.title),
          Description: productCell(paragraphsToHtml(product.description)),
          Vendor: productCell(product.vendor),
          Type: productCell(product.product_type),
          Tags: productCell(product.tags.join(", ")),
          Status: productCell(product.status),
          "Option1 name": optionCells[0]!,
          "Option1 value": optionCells[1]!,
          "Option2 name": optionCells[2]!,
          "Option2 value": optionCells[3]!,
          "Option3 name": optionCells[4]!,
          "Option3 value": optionCells[5]!,
          SKU: variant.sku ?? "",
          Price: csvMoney(variant.price_cents),
          "Compare-at price": csvMoney(variant.compare_at_cents),
          "Charge tax": csvBoolean(variant.charge_tax),
          "Inventory tracker": variant.tracks_stock ? "shopify" : "",
          "Inventory quantity": variant.tracks_stock ? String(variant.on_hand) : "",
          "Continue selling when out of stock": variant.continue_selling ? "CONTINUE" : "DENY",
          "Weight value (grams)": String(variant.weight_grams),
          "Product image URL": productCell(
            product.image === NO_PICTURE.src ? "" : new URL(pictureUrl(product.image), origin).toString(),
          ),
          Departments: productCell(departmentPaths.join("; ")),
        };
        yield PRODUCT_EXPORT_COLUMNS.map((column) => row[column]);
      }
    }
    after = products[products.length - 1]!.id;
  }
}
