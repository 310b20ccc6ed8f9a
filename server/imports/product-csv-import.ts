// The product CSV import: a preview of what each product would become, and the import in one transaction through each
// table's owner, with its report and pictures to fetch.

import { randomBytes, randomUUID } from "node:crypto";
import { sql, type Transaction } from "kysely";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { NO_PICTURE, PRODUCT_IMAGE_SIZE } from "#server/catalogue/catalogue-data";
import type {
  CatalogueService,
  ImportedOptionsAndVariants,
  ImportedProductValues,
} from "#server/catalogue/catalogue-service";
import type { DB } from "#server/db/client";
import { inBatches } from "#server/db/in-batches";
import type { Database } from "#server/db/schema";
import { departmentPath, departmentPathKey, type DepartmentService } from "#server/departments/department-service";
import type { InventoryService } from "#server/inventory/inventory-service";
import { formatCents } from "#shared/money";
import { shopPictureReference } from "#shared/shop-pictures";
import { readProductCsv, tidyParagraphs, type WantedProduct } from "./product-csv-read";

export type ProductOutcomeKind = "created" | "updated" | "unchanged" | "error";

export interface ProductOutcome {
  line: number;
  handle: string;
  title: string;
  outcome: ProductOutcomeKind;
  /** Why it is an error: "Line 12: …". */
  reasons: string[];
  /** What an import changes ("Price $12.00 -> $10.00", "Stock M / Black: 7 -> 5"). */
  changes: string[];
}

export interface ImportReport {
  fileName: string;
  layout: "current" | "classic" | null;
  rows: number;
  ignoredColumns: string[];
  counts: Record<ProductOutcomeKind, number>;
  products: ProductOutcome[];
  /** The file as a whole could not be read (not UTF-8, not CSV, too large, no handle column): nothing else is said. */
  fileError: string | null;
}

/** A picture an applied import is fetching or fetched, for its report. */
export interface ImportPicture {
  productId: string;
  title: string;
  slug: string;
  url: string;
  line: number;
  status: "pending" | "stored" | "failed";
  reason: string | null;
}

export interface AppliedImport {
  id: string;
  fileName: string;
  operatorEmail: string;
  rows: number;
  counts: { created: number; updated: number; unchanged: number };
  ignoredColumns: string[];
  createdAt: Date;
  pictures: ImportPicture[];
}

/** One import at a time: two at once could each create the same new product or department. */
const IMPORT_LOCK = 7_240_001;

/** "4.5 (12 ratings)", as the preview names a rating before and after; "" for none. */
function describeRating(rating: { value: number; count: number | null } | null | undefined): string {
  if (!rating) return "";
  return rating.count === null
    ? String(rating.value)
    : `${rating.value} (${rating.count} rating${rating.count === 1 ? "" : "s"})`;
}

type Image = { src: string; width: number; height: number; srcSet: string | null };

interface ExistingVariant {
  id: string;
  optionValues: string[];
  sku: string | null;
  priceCents: number;
  compareAtCents: number | null;
  weightGrams: number;
  chargeTax: boolean;
  tracksStock: boolean;
  onHand: number;
  continueSelling: boolean;
}

interface ExistingProduct {
  id: string;
  slug: string;
  title: string;
  description: string;
  priceCents: number;
  status: "active" | "archived";
  vendor: string;
  productType: string;
  tags: string[];
  rating: { value: number; count: number | null } | null;
  image: Image;
  options: { name: string; values: string[] }[];
  variants: ExistingVariant[];
  departmentIds: string[];
}

interface DepartmentEntry {
  id: string;
  name: string;
  parentId: string | null;
}

interface StockChange {
  variantId: string;
  tracksStock: boolean;
  continueSelling: boolean;
  onHand?: number;
}

/** What applying the file writes, decided product by product. */
interface PlannedWrites {
  created: ImportedProductValues[];
  updated: (ImportedProductValues & { previousSlug: string })[];
  variants: ImportedOptionsAndVariants[];
  stock: StockChange[];
  placements: { productId: string; paths: string[][] }[];
  pictures: { productId: string; url: string; line: number; replaces: string }[];
}

interface Plan {
  report: ImportReport;
  writes: PlannedWrites;
}

const variantKey = (values: readonly string[]) => JSON.stringify(values);
const optionLabel = (values: readonly string[]) => (values.length === 0 ? "" : ` ${values.join(" / ")}`);

/** What the catalogue holds for the file's handles and SKUs, read in batches (a file may name 100,000). */
async function readCatalogue(trx: Transaction<Database>, wanted: readonly WantedProduct[]) {
  const bySlug = new Map<string, string>();
  for (const batch of inBatches(
    wanted.map((product) => product.handle),
    1000,
  )) {
    for (const row of await trx.selectFrom("products").select(["id", "slug"]).where("slug", "in", batch).execute())
      bySlug.set(row.slug, row.id);
  }
  const skus = [
    ...new Set(wanted.flatMap((product) => product.variants.flatMap((variant) => (variant.sku ? [variant.sku] : [])))),
  ];
  const skuOwner = new Map<string, string>();
  for (const batch of inBatches(skus, 1000)) {
    for (const row of await trx
      .selectFrom("product_variants")
      .select(["sku", "product_id"])
      .where("sku", "in", batch)
      .execute())
      skuOwner.set(row.sku ?? "", row.product_id);
  }
  const existing = new Map<string, ExistingProduct>();
  for (const batch of inBatches([...new Set([...bySlug.values(), ...skuOwner.values()])], 1000)) {
    const products = await trx
      .selectFrom("products")
      .select([
        "id",
        "slug",
        "title",
        "description",
        "price_cents",
        "status",
        "vendor",
        "product_type",
        "tags",
        "rating",
        "rating_count",
        "image",
        "image_width",
        "image_height",
        "image_srcset",
      ])
      .where("id", "in", batch)
      .forUpdate()
      .execute();
    const options = await trx
      .selectFrom("product_options")
      .select(["product_id", "name", "values"])
      .where("product_id", "in", batch)
      .orderBy("position")
      .execute();
    const variants = await trx
      .selectFrom("product_variants")
      .select([
        "id",
        "product_id",
        "option_values",
        "sku",
        "price_cents",
        "compare_at_cents",
        "weight_grams",
        "charge_tax",
        "tracks_stock",
        "on_hand",
        "continue_selling",
      ])
      .where("product_id", "in", batch)
      .orderBy("position")
      .orderBy("id")
      .execute();
    const placements = await trx
      .selectFrom("product_departments")
      .select(["product_id", "department_id"])
      .where("product_id", "in", batch)
      .execute();
    for (const row of products) {
      existing.set(row.id, {
        id: row.id,
        slug: row.slug,
        title: row.title,
        description: row.description,
        priceCents: row.price_cents,
        status: row.status,
        vendor: row.vendor,
        productType: row.product_type,
        tags: row.tags,
        rating: row.rating === null ? null : { value: row.rating, count: row.rating_count },
        image: { src: row.image, width: row.image_width, height: row.image_height, srcSet: row.image_srcset },
        options: options
          .filter((option) => option.product_id === row.id)
          .map((option) => ({ name: option.name, values: option.values })),
        variants: variants
          .filter((variant) => variant.product_id === row.id)
          .map((variant) => ({
            id: variant.id,
            optionValues: variant.option_values,
            sku: variant.sku,
            priceCents: variant.price_cents,
            compareAtCents: variant.compare_at_cents,
            weightGrams: variant.weight_grams,
            chargeTax: variant.charge_tax,
            tracksStock: variant.tracks_stock,
            onHand: variant.on_hand,
            continueSelling: variant.continue_selling,
          })),
        departmentIds: placements
          .filter((placement) => placement.product_id === row.id)
          .map((placement) => placement.department_id),
      });
    }
  }
  const departments: DepartmentEntry[] = (
    await trx.selectFrom("departments").select(["id", "name", "parent_id"]).execute()
  ).map((row) => ({
    id: row.id,
    name: row.name,
    parentId: row.parent_id,
  }));
  return {
    bySlug,
    skuOwner,
    existing,
    departments,
    pictures: await readOwnPictures(trx, wanted),
    fetched: await readFetchedPictures(trx, [...existing.keys()]),
  };
}

/** The shop's own pictures the file names by address (what the export writes): kept as they are, never fetched. */
async function readOwnPictures(
  trx: Transaction<Database>,
  wanted: readonly WantedProduct[],
): Promise<Map<string, Image>> {
  const found = new Map<string, Image>();
  const uploads = new Map<string, string>();
  for (const url of new Set(wanted.flatMap((product) => (product.imageUrl ? [product.imageUrl] : [])))) {
    const path = new URL(url).pathname;
    const shopPicture = shopPictureReference(path);
    if (shopPicture) found.set(url, { src: shopPicture, ...PRODUCT_IMAGE_SIZE, srcSet: null });
    else if (/^\/pictures\/[a-f0-9]{32}\.webp$/.test(path)) uploads.set(url, path);
  }
  for (const batch of inBatches([...uploads], 1000)) {
    const paths = batch.map(([, path]) => path);
    const stored = await trx
      .selectFrom("pictures")
      .select(["name", "width", "height"])
      .where(
        "name",
        "in",
        paths.map((path) => path.slice("/pictures/".length)),
      )
      .execute();
    const srcSets = await trx
      .selectFrom("products")
      .select(["image", "image_srcset"])
      .where("image", "in", paths)
      .where("image_srcset", "is not", null)
      .execute();
    for (const [url, path] of batch) {
      const picture = stored.find((row) => `/pictures/${row.name}` === path);
      // A name the shop does not hold is another shop's picture: fetched like any other address.
      if (!picture) continue;
      found.set(url, {
        src: path,
        width: picture.width,
        height: picture.height,
        srcSet: srcSets.find((row) => row.image === path)?.image_srcset ?? `${path} ${picture.width}w`,
      });
    }
  }
  return found;
}

/** Pictures earlier imports fetched for these products, by address: what each became. */
async function readFetchedPictures(
  trx: Transaction<Database>,
  productIds: readonly string[],
): Promise<Map<string, Map<string, string>>> {
  const fetched = new Map<string, Map<string, string>>();
  for (const batch of inBatches(productIds, 1000)) {
    const rows = await trx
      .selectFrom("product_import_pictures")
      .select(["product_id", "url", "stored_as"])
      .where("product_id", "in", batch)
      .where("status", "=", "stored")
      .orderBy("updated_at")
      .execute();
    for (const row of rows)
      if (row.stored_as)
        fetched.set(row.product_id, (fetched.get(row.product_id) ?? new Map()).set(row.url, row.stored_as));
  }
  return fetched;
}

/** Decides, product by product, what the file does to the catalogue as `trx` sees it. */
async function planImport(
  trx: Transaction<Database>,
  fileName: string,
  read: Extract<Awaited<ReturnType<typeof readProductCsv>>, { ok: true }>,
): Promise<Plan> {
  const catalogue = await readCatalogue(trx, read.products);
  const departmentKeys = new Map(
    catalogue.departments.map((department) => [department.id, departmentPath(department, catalogue.departments)]),
  );
  // As department-service.ts findOrCreateByPaths finds them: a lone name at either level, top-level first.
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const topLevel = (name: string) =>
    catalogue.departments.find((department) => department.parentId === null && same(department.name, name));
  const findDepartment = ([first = "", second]: readonly string[]): string | undefined => {
    if (second === undefined)
      return (topLevel(first) ?? catalogue.departments.find((department) => same(department.name, first)))?.id;
    const parent = topLevel(first);
    return (
      parent &&
      catalogue.departments.find((department) => department.parentId === parent.id && same(department.name, second))?.id
    );
  };
  const writes: PlannedWrites = { created: [], updated: [], variants: [], stock: [], placements: [], pictures: [] };
  const outcomes: ProductOutcome[] = [];
  const claimed = new Map<string, number>();
  const skuLines = new Map<string, number>();

  for (const wanted of read.products) {
    const errors = [...wanted.errors];
    const changes: string[] = [];
    const problem = (line: number, sentence: string) => errors.push(`Line ${line}: ${sentence}`);
    const titleOf = (id: string) => catalogue.existing.get(id)?.title ?? id;

    // Matched by handle, then by SKU; a row whose handle and SKU name two products is refused.
    const byHandle = catalogue.bySlug.get(wanted.handle);
    const bySku = new Map<string, string>();
    for (const variant of wanted.variants) {
      const owner = variant.sku ? catalogue.skuOwner.get(variant.sku) : undefined;
      if (variant.sku && owner) bySku.set(variant.sku, owner);
      if (variant.sku) {
        const earlier = skuLines.get(variant.sku);
        if (earlier !== undefined && earlier < wanted.line)
          problem(variant.line, `the SKU “${variant.sku}” is already on line ${earlier}, another product's.`);
        else skuLines.set(variant.sku, variant.line);
      }
    }
    let matchedId = byHandle;
    for (const [sku, owner] of bySku) {
      const line = wanted.variants.find((variant) => variant.sku === sku)?.line ?? wanted.line;
      if (byHandle && owner !== byHandle) {
        problem(
          line,
          `the URL handle “${wanted.handle}” is the product “${titleOf(byHandle)}”, but the SKU “${sku}” is the product “${titleOf(owner)}”'s: a row names one product.`,
        );
      } else if (!byHandle && matchedId && owner !== matchedId) {
        problem(line, `the SKUs name two products, “${titleOf(matchedId)}” and “${titleOf(owner)}”.`);
      } else {
        matchedId = owner;
      }
    }
    if (matchedId && claimed.has(matchedId) && errors.length === 0)
      problem(
        wanted.line,
        `this is the product of line ${claimed.get(matchedId)} (“${titleOf(matchedId)}”) again, by its handle or SKUs.`,
      );
    if (matchedId && !claimed.has(matchedId)) claimed.set(matchedId, wanted.line);
    const existing = matchedId ? catalogue.existing.get(matchedId) : undefined;
    if (!existing && !wanted.title) problem(wanted.line, "a new product needs a title.");
    if (wanted.variants.length === 0 && errors.length === 0) problem(wanted.line, "the product has no variant row.");

    const productId = existing?.id ?? randomBytes(6).toString("hex");
    const title = wanted.title ?? existing?.title ?? wanted.handle;

    // Variants by their values: an existing one keeps its id (its baskets, its stock).
    const existingByKey = new Map(
      (existing?.variants ?? []).map((variant) => [variantKey(variant.optionValues), variant]),
    );
    const variants: ImportedOptionsAndVariants["variants"][number][] = [];
    const stock: (StockChange & {
      label: string;
      onHandBefore: number;
      onHandAfter: number;
      before?: ExistingVariant;
    })[] = [];
    for (const wantedVariant of wanted.variants) {
      const before = existingByKey.get(variantKey(wantedVariant.optionValues));
      const id = before?.id ?? (wanted.options.length === 0 ? productId : randomBytes(6).toString("hex"));
      const priceCents = wantedVariant.priceCents ?? before?.priceCents;
      if (priceCents === undefined) {
        // A price that could not be read is already an error of its line.
        if (!errors.some((error) => error.startsWith(`Line ${wantedVariant.line}: the price`)))
          problem(wantedVariant.line, "the variant needs a price.");
        continue;
      }
      variants.push({
        id,
        optionValues: wantedVariant.optionValues,
        sku: wantedVariant.sku !== undefined ? wantedVariant.sku : (before?.sku ?? null),
        priceCents,
        compareAtCents:
          wantedVariant.compareAtCents !== undefined ? wantedVariant.compareAtCents : (before?.compareAtCents ?? null),
        weightGrams: wantedVariant.weightGrams ?? before?.weightGrams ?? 0,
        chargeTax: wantedVariant.chargeTax ?? before?.chargeTax ?? true,
      });
      const tracksStock = wantedVariant.stock?.tracksStock ?? before?.tracksStock ?? false;
      const onHandBefore = before?.onHand ?? 0;
      const onHand = wantedVariant.stock?.tracksStock ? (wantedVariant.stock.onHand ?? onHandBefore) : onHandBefore;
      stock.push({
        variantId: id,
        tracksStock,
        continueSelling: wantedVariant.continueSelling ?? before?.continueSelling ?? false,
        onHand,
        label: optionLabel(wantedVariant.optionValues),
        onHandBefore,
        onHandAfter: onHand,
        before,
      });
    }

    // The picture: the shop's own is kept as it is; any other address is fetched once the import has committed.
    let image: Image = existing?.image ?? {
      src: NO_PICTURE.src,
      width: NO_PICTURE.width,
      height: NO_PICTURE.height,
      srcSet: null,
    };
    let picture: PlannedWrites["pictures"][number] | undefined;
    let pictureChange: string | undefined;
    if (wanted.imageUrl) {
      const own = catalogue.pictures.get(wanted.imageUrl);
      if (own) {
        if (own.src !== image.src) pictureChange = `Picture: ${new URL(wanted.imageUrl).pathname}`;
        image = own;
      } else if (!existing || catalogue.fetched.get(existing.id)?.get(wanted.imageUrl) !== existing.image.src) {
        picture = { productId, url: wanted.imageUrl, line: wanted.line, replaces: image.src };
        pictureChange = `Picture: fetched from ${wanted.imageUrl} after the import`;
      }
    }

    const prices = variants.map((variant) => variant.priceCents);
    const priceCents =
      existing && prices.includes(existing.priceCents)
        ? existing.priceCents
        : prices.length > 0
          ? Math.min(...prices)
          : (existing?.priceCents ?? 0);
    const values: ImportedProductValues = {
      id: productId,
      slug: wanted.handle,
      title,
      description:
        wanted.description === undefined
          ? (existing?.description ?? "")
          : existing && tidyParagraphs(existing.description) === wanted.description
            ? existing.description
            : wanted.description,
      priceCents,
      status: wanted.status ?? existing?.status ?? "active",
      vendor: wanted.vendor ?? existing?.vendor ?? "",
      productType: wanted.productType ?? existing?.productType ?? "",
      tags: wanted.tags ?? existing?.tags ?? [],
      ...(wanted.rating ? { rating: wanted.rating } : {}),
      image,
    };

    const paths = wanted.departments;
    const newDepartments = (paths ?? [])
      .filter((path) => findDepartment(path) === undefined)
      .map((path) => `${path.join(" > ")} (new)`);
    const pathsBefore = (existing?.departmentIds ?? []).map((id) => departmentKeys.get(id) ?? []);
    const idsKey = (ids: readonly (string | undefined)[]) =>
      [...new Set(ids.map((id) => id ?? "(new)"))].sort().join("|");
    const placementChanged =
      paths !== undefined &&
      (!existing || newDepartments.length > 0 || idsKey(paths.map(findDepartment)) !== idsKey(existing.departmentIds));

    if (existing) {
      const describe = (label: string, before: string, after: string) => {
        if (before !== after) changes.push(`${label}: ${before || "(none)"} -> ${after || "(none)"}`);
      };
      describe("URL handle", existing.slug, values.slug);
      describe("Title", existing.title, values.title);
      if (existing.description !== values.description) changes.push("Description changed");
      describe("Vendor", existing.vendor, values.vendor);
      describe("Type", existing.productType, values.productType);
      describe("Tags", existing.tags.join(", "), values.tags.join(", "));
      describe("Status", existing.status, values.status);
      describe("Price", formatCents(existing.priceCents), formatCents(values.priceCents));
      if (values.rating !== undefined)
        describe("Rating", describeRating(existing.rating), describeRating(values.rating));
      if (pictureChange) changes.push(pictureChange);
      if (placementChanged) {
        changes.push(
          `Departments: ${pathsBefore.map((path) => path.join(" > ")).join(", ") || "(none)"} -> ${(paths ?? []).map((path) => path.join(" > ")).join(", ") || "(none)"}`,
        );
      }
      const optionsText = (options: readonly { name: string; values: readonly string[] }[]) =>
        options.map((option) => `${option.name} (${option.values.join(", ")})`).join(", ");
      describe("Options", optionsText(existing.options), optionsText(wanted.options));
      for (const variant of variants) {
        const before = existingByKey.get(variantKey(variant.optionValues));
        const label = optionLabel(variant.optionValues);
        if (!before) {
          changes.push(`Variant${label} added`);
          continue;
        }
        const field = (name: string, was: string, now: string) => {
          if (was !== now) changes.push(`${name}${label}: ${was || "(none)"} -> ${now || "(none)"}`);
        };
        field("SKU", before.sku ?? "", variant.sku ?? "");
        field("Price", formatCents(before.priceCents), formatCents(variant.priceCents));
        field(
          "Compare-at price",
          before.compareAtCents === null ? "" : formatCents(before.compareAtCents),
          variant.compareAtCents === null ? "" : formatCents(variant.compareAtCents),
        );
        field("Weight", `${before.weightGrams} g`, `${variant.weightGrams} g`);
        field("Charge tax", before.chargeTax ? "yes" : "no", variant.chargeTax ? "yes" : "no");
      }
      const kept = new Set(variants.map((variant) => variantKey(variant.optionValues)));
      for (const variant of existing.variants)
        if (!kept.has(variantKey(variant.optionValues)))
          changes.push(`Variant${optionLabel(variant.optionValues)} removed`);
      if (
        existing.variants.map((variant) => variant.id).join() !== variants.map((variant) => variant.id).join() &&
        !changes.some((change) => change.startsWith("Variant"))
      ) {
        changes.push("Variants in a new order");
      }
    } else {
      if (pictureChange) changes.push(pictureChange);
      if (paths && paths.length > 0) changes.push(`Departments: ${paths.map((path) => path.join(" > ")).join(", ")}`);
    }
    if (newDepartments.length > 0) changes.push(`New departments: ${newDepartments.join(", ")}`);
    for (const entry of stock) {
      const tracked = entry.before?.tracksStock ?? false;
      if (entry.tracksStock && entry.onHandBefore !== entry.onHandAfter)
        changes.push(`Stock${entry.label}: ${entry.onHandBefore} -> ${entry.onHandAfter}`);
      if (entry.before && tracked !== entry.tracksStock)
        changes.push(`Stock${entry.label}: ${entry.tracksStock ? "tracked" : "not tracked"}`);
      if (entry.before && entry.before.continueSelling !== entry.continueSelling) {
        changes.push(`Continue selling when out of stock${entry.label}: ${entry.continueSelling ? "yes" : "no"}`);
      }
    }

    const outcome: ProductOutcomeKind =
      errors.length > 0 ? "error" : !existing ? "created" : changes.length > 0 ? "updated" : "unchanged";
    outcomes.push({
      line: wanted.line,
      handle: wanted.handle,
      title,
      outcome,
      reasons: errors,
      changes: outcome === "error" ? [] : changes,
    });
    if (outcome === "error" || outcome === "unchanged") continue;

    const productChanged =
      !existing ||
      (["slug", "title", "description", "priceCents", "status", "vendor", "productType"] as const).some(
        (key) => values[key] !== (key === "slug" ? existing.slug : existing[key]),
      ) ||
      values.tags.join("\u0000") !== existing.tags.join("\u0000") ||
      (values.rating !== undefined && describeRating(values.rating) !== describeRating(existing.rating)) ||
      values.image.src !== existing.image.src;
    if (!existing) writes.created.push(values);
    else if (productChanged) writes.updated.push({ ...values, previousSlug: existing.slug });
    const variantsChanged =
      !existing ||
      JSON.stringify(existing.options) !== JSON.stringify(wanted.options) ||
      JSON.stringify(
        existing.variants.map(
          ({ id, optionValues, sku, priceCents: price, compareAtCents, weightGrams, chargeTax }) => ({
            id,
            optionValues,
            sku,
            priceCents: price,
            compareAtCents,
            weightGrams,
            chargeTax,
          }),
        ),
      ) !== JSON.stringify(variants);
    if (variantsChanged) writes.variants.push({ productId, options: wanted.options, variants });
    for (const entry of stock) {
      const before = entry.before;
      if (
        before
          ? before.tracksStock !== entry.tracksStock ||
            before.continueSelling !== entry.continueSelling ||
            before.onHand !== entry.onHandAfter
          : entry.tracksStock || entry.continueSelling || entry.onHandAfter !== 0
      ) {
        writes.stock.push({
          variantId: entry.variantId,
          tracksStock: entry.tracksStock,
          continueSelling: entry.continueSelling,
          onHand: entry.onHandAfter,
        });
      }
    }
    if (placementChanged && paths) writes.placements.push({ productId, paths });
    if (picture) writes.pictures.push(picture);
  }

  const counts: Record<ProductOutcomeKind, number> = { created: 0, updated: 0, unchanged: 0, error: 0 };
  for (const outcome of outcomes) counts[outcome.outcome] += 1;
  return {
    report: {
      fileName,
      layout: read.header.layout,
      rows: read.rows,
      ignoredColumns: read.header.ignored,
      counts,
      products: outcomes,
      fileError: null,
    },
    writes,
  };
}

function fileErrorReport(fileName: string, error: string, rows: number): ImportReport {
  return {
    fileName,
    layout: null,
    rows,
    ignoredColumns: [],
    counts: { created: 0, updated: 0, unchanged: 0, error: 0 },
    products: [],
    fileError: error,
  };
}

/** An import refused because of its errors: thrown inside its transaction, so nothing is written. */
class ImportRefused extends Error {
  constructor(readonly report: ImportReport) {
    super("The import was refused: the file has errors.");
  }
}

/**
 * The console's CSV import of products (Shopify's current and classic layouts): "Preview" says, product by product,
 * what an import would do (created, updated, unchanged, or an error with its line and reason) and changes nothing;
 * "Import" applies the whole file in one transaction or nothing at all, with one audit entry. Rows are matched to
 * products by URL handle, then by SKU. Each table is written by its owner (the catalogue, departments, inventory),
 * inside this transaction; this module writes only the imports and their pictures (product_imports,
 * product_import_pictures), whose fetching after the commit is picture-fetcher.ts's.
 */
export function createProductCsvImport({
  db,
  catalogue,
  departments,
  inventory,
  onPicturesQueued,
}: {
  db: DB;
  catalogue: CatalogueService;
  departments: DepartmentService;
  inventory: InventoryService;
  /** Called after an import that named pictures elsewhere has committed: their fetching starts. */
  onPicturesQueued: () => void;
}) {
  /** The whole file in one transaction; ImportRefused (nothing written) when any product has an error. */
  function apply(
    actor: Actor,
    fileName: string,
    read: Extract<Awaited<ReturnType<typeof readProductCsv>>, { ok: true }>,
    id: string,
  ): Promise<Plan> {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${IMPORT_LOCK})`.execute(trx);
      const plan = await planImport(trx, fileName, read);
      if (plan.report.counts.error > 0) throw new ImportRefused(plan.report);
      const { writes: planned } = plan;
      const departmentIds = await departments.findOrCreateByPaths(
        trx,
        planned.placements.flatMap((placement) => placement.paths),
      );
      await catalogue.writeImportedProducts(trx, { created: planned.created, updated: planned.updated });
      await catalogue.writeImportedVariants(trx, planned.variants);
      await inventory.setImportedStock(trx, planned.stock, actor.email, `import ${id}`);
      await departments.placeImportedProducts(
        trx,
        new Map(
          planned.placements.map((placement) => [
            placement.productId,
            placement.paths.map((path) => departmentIds.get(departmentPathKey(path))!),
          ]),
        ),
      );
      const { counts } = plan.report;
      await trx
        .insertInto("product_imports")
        .values({
          id,
          operator_id: actor.id,
          operator_email: actor.email,
          file_name: fileName.slice(0, 255),
          rows: read.rows,
          created: counts.created,
          updated: counts.updated,
          unchanged: counts.unchanged,
          ignored_columns: JSON.stringify(read.header.ignored),
        })
        .execute();
      for (const batch of inBatches(planned.pictures, 1000)) {
        await trx
          .insertInto("product_import_pictures")
          .values(
            batch.map((picture) => ({
              import_id: id,
              product_id: picture.productId,
              url: picture.url,
              line: picture.line,
              replaces: picture.replaces,
            })),
          )
          .execute();
      }
      await recordAudit(trx, actor, {
        action: "products.import",
        subject: fileName.slice(0, 255),
        before: null,
        after: {
          import: id,
          rows: read.rows,
          created: counts.created,
          updated: counts.updated,
          unchanged: counts.unchanged,
          pictures: planned.pictures.length,
        },
      });
      return plan;
    });
  }

  return {
    /** What importing the file would do, product by product; nothing is written. */
    async preview(file: { name: string; bytes: Uint8Array }): Promise<ImportReport> {
      const read = await readProductCsv(file.bytes);
      if (!read.ok) return fileErrorReport(file.name, read.error, read.rows);
      return db.transaction().execute(async (trx) => (await planImport(trx, file.name, read)).report);
    },

    /**
     * Applies the whole file in one transaction, or nothing when the file cannot be read or any product has an
     * error (then the report says why). Answers the import's id, for its report page.
     */
    async importFile(
      actor: Actor,
      file: { name: string; bytes: Uint8Array },
    ): Promise<{ ok: true; id: string; report: ImportReport } | { ok: false; report: ImportReport }> {
      const read = await readProductCsv(file.bytes);
      if (!read.ok) return { ok: false, report: fileErrorReport(file.name, read.error, read.rows) };
      const id = randomUUID();
      let applied: Plan;
      try {
        applied = await apply(actor, file.name, read, id);
      } catch (error) {
        if (error instanceof ImportRefused) return { ok: false, report: error.report };
        throw error;
      }
      catalogue.noteWrite();
      if (applied.writes.pictures.length > 0) onPicturesQueued();
      return { ok: true, id, report: applied.report };
    },

    /** An applied import, with its pictures as they stand now; undefined for an unknown id. */
    async getImport(id: string): Promise<AppliedImport | undefined> {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
      const row = await db.selectFrom("product_imports").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) return undefined;
      const pictures = await db
        .selectFrom("product_import_pictures as p")
        .innerJoin("products", "products.id", "p.product_id")
        .select(["p.product_id", "products.title", "products.slug", "p.url", "p.line", "p.status", "p.reason"])
        .where("p.import_id", "=", id)
        .orderBy("p.line")
        .execute();
      return {
        id: row.id,
        fileName: row.file_name,
        operatorEmail: row.operator_email,
        rows: row.rows,
        counts: { created: row.created, updated: row.updated, unchanged: row.unchanged },
        ignoredColumns: row.ignored_columns,
        createdAt: row.created_at,
        pictures: pictures.map((picture) => ({
          productId: picture.product_id,
          title: picture.title,
          slug: picture.slug,
          url: picture.url,
          line: picture.line,
          status: picture.status,
          reason: picture.reason,
        })),
      };
    },
  };
}

export type ProductCsvImport = ReturnType<typeof createProductCsvImport>;
