/**
 * The columns of a product CSV: Shopify's current layout (what the export writes, one row per variant, the product's
 * own fields on its first row) and its classic one (Handle, Body (HTML), Variant SKU, …), which the import reads as
 * well, so that a shop moving from Shopify brings the file it already has. Headers are matched without regard to case
 * or surrounding spaces; a column the shop does not use is ignored and listed on the import's report.
 */

/** What the export writes, in order: Shopify's current names, and our Departments (names separated by ";"). */
export const PRODUCT_EXPORT_COLUMNS = [
  "URL handle",
  "Title",
  "Description",
  "Vendor",
  "Type",
  "Tags",
  "Status",
  "Option1 name",
  "Option1 value",
  "Option2 name",
  "Option2 value",
  "Option3 name",
  "Option3 value",
  "SKU",
  "Price",
  "Compare-at price",
  "Charge tax",
  "Inventory tracker",
  "Inventory quantity",
  "Continue selling when out of stock",
  "Weight value (grams)",
  "Product image URL",
  "Departments",
] as const;

/** Each field the import reads, and the headers that carry it (current layout first, then classic). */
const FIELD_HEADERS = {
  handle: ["URL handle", "Handle"],
  title: ["Title"],
  description: ["Description", "Body (HTML)"],
  vendor: ["Vendor"],
  type: ["Type"],
  category: ["Product category"],
  tags: ["Tags"],
  status: ["Status"],
  published: ["Published on online store", "Published"],
  option1Name: ["Option1 name"],
  option1Value: ["Option1 value"],
  option2Name: ["Option2 name"],
  option2Value: ["Option2 value"],
  option3Name: ["Option3 name"],
  option3Value: ["Option3 value"],
  sku: ["SKU", "Variant SKU"],
  price: ["Price", "Variant Price"],
  compareAt: ["Compare-at price", "Variant Compare At Price"],
  chargeTax: ["Charge tax", "Variant Taxable"],
  tracker: ["Inventory tracker", "Variant Inventory Tracker"],
  quantity: ["Inventory quantity", "Variant Inventory Qty"],
  continueSelling: ["Continue selling when out of stock", "Variant Inventory Policy"],
  grams: ["Weight value (grams)", "Variant Grams"],
  image: ["Product image URL", "Image Src"],
  departments: ["Departments"],
  /** Shopify's standard product rating metafield, as its export names the column. */
  rating: ["Rating (product.metafields.reviews.rating)", "product.metafields.reviews.rating"],
  /** How many ratings the rating stands for: a rating is kept only with its count. */
  ratingCount: ["Rating count (product.metafields.reviews.rating_count)", "product.metafields.reviews.rating_count"],
} as const;

export type ProductCsvField = keyof typeof FIELD_HEADERS;

/** A CSV row as the import reads it: each known field's cell (absent when the file has no such column). */
export type ProductCsvRow = Partial<Record<ProductCsvField, string>>;

const FIELD_BY_HEADER = new Map<string, ProductCsvField>(
  (Object.entries(FIELD_HEADERS) as [ProductCsvField, readonly string[]][]).flatMap(([field, headers]) =>
    headers.map((header) => [normaliseHeader(header), field] as const),
  ),
);

function normaliseHeader(header: string): string {
  return header.trim().replace(/\s+/g, " ").toLowerCase();
}

export interface ProductCsvHeader {
  /** The column each field is read from. */
  columns: Map<ProductCsvField, number>;
  /** Headers of columns the import does not use, as the file spells them. */
  ignored: string[];
  /** Which of Shopify's layouts the file is in: "current" (URL handle) or "classic" (Handle). */
  layout: "current" | "classic";
}

/** Reads the header row; answers a sentence instead when the file is not a product CSV the import can read. */
export function readProductCsvHeader(header: readonly string[]): ProductCsvHeader | { error: string } {
  const columns = new Map<ProductCsvField, number>();
  const ignored: string[] = [];
  for (const [index, raw] of header.entries()) {
    const field = FIELD_BY_HEADER.get(normaliseHeader(raw));
    if (!field) {
      if (raw.trim() !== "") ignored.push(raw.trim());
      continue;
    }
    if (columns.has(field))
      return { error: `The column “${raw.trim()}” appears twice (or with another name for the same thing): keep one.` };
    columns.set(field, index);
  }
  if (!columns.has("handle") && !columns.has("title")) {
    return {
      error:
        "The file has no URL handle (or Handle) column and no Title column: is it a product CSV exported from this shop or from Shopify?",
    };
  }
  const handleHeader = columns.has("handle") ? normaliseHeader(header[columns.get("handle")!]!) : "";
  return { columns, ignored, layout: handleHeader === "handle" ? "classic" : "current" };
}

/** One record's cells by field. */
export function readProductCsvRow(header: ProductCsvHeader, record: readonly string[]): ProductCsvRow {
  const row: ProductCsvRow = {};
  for (const [field, index] of header.columns) row[field] = record[index] ?? "";
  return row;
}
