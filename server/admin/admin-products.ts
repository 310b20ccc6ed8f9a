// The console's reads and writes of products: the product list with its filters and stock counts, one product with its
// variants and stock movements, and the product form's saves through the catalogue.

import { sql } from "kysely";
import { AppError } from "#shared/errors";
import { pictureUrl } from "#shared/shop-pictures";
import {
  DEFAULT_LOW_STOCK_AT,
  variantField,
  type AdminProductInput,
  type VariantFormInput,
} from "#shared/admin-schemas";
import type { InventoryService } from "#server/inventory/inventory-service";
import { availableOfVariant } from "#server/inventory/available-stock";
import type { CatalogueService, ProductValues } from "#server/catalogue/catalogue-service";
import type { DB } from "#server/db/client";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { encodePicture, type EncodedPicture, type PictureStore } from "#server/pictures/picture-store";
import type { DepartmentService } from "#server/departments/department-service";

export const ADMIN_PRODUCTS_PAGE_SIZE = 50;

export interface AdminProductRow {
  id: string;
  slug: string;
  title: string;
  priceCents: number;
  /** The stars shoppers see (reviews' average, else the rating it came with); null: none. */
  rating: number | null;
  status: "active" | "archived";
  featuredPosition: number | null;
  image: string;
  updatedAt: Date;
  /** The sum of on hand over its tracked variants; null when none tracks stock ("Not tracked"). */
  stock: number | null;
}

export interface AdminProductList {
  products: AdminProductRow[];
  total: number;
  /** Low variants among the matching products ("Low stock at", per variant). */
  lowVariants: number;
  page: number;
  pageCount: number;
  counts: { active: number; archived: number };
}

/** A product's stock: the sum of on hand over its tracked variants; null when none tracks stock. */
const stockSum = sql<
  number | null
>`(select sum(v.on_hand)::int from product_variants v where v.product_id = products.id and v.tracks_stock)`;
/**
 * A low variant: it tracks stock and what is available (on hand less live holds) is 1 to its own "Low stock at"
 * (0 and below is out of stock). The products list's "Low stock" and the dashboard count these.
 */
const lowVariant = sql<boolean>`v.tracks_stock and ${availableOfVariant} between 1 and v.low_stock_at`;
/** How many of the product's variants are low. */
const lowVariantCount = sql<number>`(select count(*)::int from product_variants v where v.product_id = products.id and ${lowVariant})`;
/** A product with at least one low variant. */
const isLowStock = sql<boolean>`exists (select 1 from product_variants v where v.product_id = products.id and ${lowVariant})`;

/** The operator console's side of the catalogue: listing every product, and writes that leave an audit entry. */
/** A variant as the audit log keeps it. */
interface VariantFacts {
  sku: string | null;
  price_cents: number;
  compare_at_cents: number | null;
  charge_tax: boolean;
  weight_grams: number;
  image: string | null;
}

export function createAdminProducts(
  db: DB,
  catalogue: CatalogueService,
  pictures: PictureStore,
  departments: DepartmentService,
  inventory: InventoryService,
) {
  type Trx = Parameters<NonNullable<Parameters<CatalogueService["updateProduct"]>[2]>>[0];
  type VariantPictures = ReadonlyMap<string, NonNullable<Parameters<CatalogueService["updateProduct"]>[1]["image"]>>;

  /**
   * What the console sets on each variant (stock aside: the stock ledger keeps that), keyed "variant {its values}"
   * ("variant" alone for a product without options), so that the audit entry keeps the rows that changed: a new SKU,
   * price, list price, weight or picture, tax charged or not.
   */
  const variantFacts = async (trx: Trx, productId: string): Promise<Record<string, VariantFacts>> => {
    const rows = await trx
      .selectFrom("product_variants")
      .select(["option_values", "sku", "price_cents", "compare_at_cents", "charge_tax", "weight_grams", "image"])
      .where("product_id", "=", productId)
      .orderBy("position")
      .execute();
    return Object.fromEntries(
      rows.map(({ option_values, ...facts }) => [["variant", ...option_values].join(" "), facts]),
    );
  };

  /**
   * The product, its departments, its options, variants and stock, and the audit entry (departments by id and each
   * variant's facts, before and after), in the product's own transaction: all saved, or nothing.
   */
  const audit =
    (
      actor: Actor,
      action: string,
      departmentIds: readonly string[],
      variants?: VariantFormInput,
      variantPictures?: VariantPictures,
    ) =>
    async (trx: Trx, before: ProductValues | null, after: ProductValues) => {
      const placed = await departments.setProductDepartments(trx, after.id, departmentIds);
      const variantsBefore = before && variants ? await variantFacts(trx, after.id) : {};
      const ids = variants
        ? await catalogue.saveOptionsAndVariants(trx, after.id, after.price_cents, variants, variantPictures)
        : new Map<string, string>();
      const variantsAfter = variants ? await variantFacts(trx, after.id) : {};
      await recordAudit(trx, actor, {
        action,
        subject: after.id,
        before: before && { ...before, departments: placed.before, ...variantsBefore },
        after: { ...after, departments: placed.after, ...variantsAfter },
      });
      for (const variant of variants?.variants ?? []) {
        const id = ids.get(variant.key);
        if (id) {
          await inventory.setStock(
            trx,
            id,
            {
              tracksStock: variant.tracksStock,
              continueSelling: variant.continueSelling,
              lowStockAt: variant.lowStockAt,
              ...(variant.onHand === undefined ? {} : { onHand: variant.onHand }),
            },
            actor.email,
          );
        }
      }
    };

  /**
   * The form's pictures, every one checked before any is stored, so that a refused one leaves nothing behind; each
   * refusal is answered under its own field (the product's Picture, a variant row's). A variant picture counts only
   * for a row of the submitted options (a product without options has the product's picture alone).
   */
  async function storeFormPictures(
    picture: Uint8Array | null,
    variants: VariantFormInput | undefined,
    variantPictures: ReadonlyMap<string, Uint8Array>,
  ) {
    const errors: Record<string, string> = {};
    const check = async (bytes: Uint8Array, field: string): Promise<EncodedPicture | null> => {
      try {
        return await encodePicture(bytes);
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== "BAD_REQUEST") throw error;
        errors[field] = error.message;
        return null;
      }
    };
    const product = picture && picture.byteLength > 0 ? await check(picture, "picture") : null;
    const rows = new Map<string, EncodedPicture>();
    for (const variant of variants && variants.options.length > 0 ? variants.variants : []) {
      const bytes = variantPictures.get(variant.key);
      if (!bytes || bytes.byteLength === 0) continue;
      // One at a time: sharp decodes each on the server's few cores.
      const encoded = await check(bytes, variantField(variant.key, "picture"));
      if (encoded) rows.set(variant.key, encoded);
    }
    const [refused] = Object.entries(errors);
    if (refused) throw new AppError("BAD_REQUEST", refused[1], { details: { field: refused[0], errors } });
    const stored: Map<string, Awaited<ReturnType<PictureStore["storeEncoded"]>>> = new Map();
    for (const [key, encoded] of rows) stored.set(key, await pictures.storeEncoded(encoded));
    return { product: product ? await pictures.storeEncoded(product) : null, variants: stored };
  }

  return {
    /** Active or archived products, a title search (substring, any case), a page at a time by title. */
    async listProducts({
      query,
      status,
      page,
      stock = "",
    }: {
      query: string;
      status: "active" | "archived";
      page: number;
      stock?: "low" | "out" | "";
    }): Promise<AdminProductList> {
      const pattern = `%${query.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
      const matching = db
        .selectFrom("products")
        .where("status", "=", status)
        .$if(query !== "", (q) => q.where(sql<boolean>`title ilike ${pattern}`))
        .$if(stock === "low", (q) => q.where(isLowStock))
        .$if(stock === "out", (q) => q.where(sql<boolean>`${stockSum} <= 0`));
      const [rows, total, counts] = await Promise.all([
        matching
          .select([
            "id",
            "slug",
            "title",
            "price_cents",
            "shown_rating",
            "status",
            "featured_position",
            "image",
            "updated_at",
            stockSum.as("stock"),
          ])
          .orderBy(sql`lower(title)`)
          .orderBy("id")
          .limit(ADMIN_PRODUCTS_PAGE_SIZE)
          .offset((page - 1) * ADMIN_PRODUCTS_PAGE_SIZE)
          .execute(),
        matching
          .select((eb) => [
            eb.fn.countAll<string>().as("count"),
            sql<number>`coalesce(sum(${lowVariantCount}), 0)::int`.as("low_variants"),
          ])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("products")
          .select(["status", (eb) => eb.fn.countAll<string>().as("count")])
          .groupBy("status")
          .execute(),
      ]);
      const totalCount = Number(total.count);
      return {
        products: rows.map((row) => ({
          id: row.id,
          slug: row.slug,
          title: row.title,
          priceCents: row.price_cents,
          rating: row.shown_rating,
          status: row.status,
          featuredPosition: row.featured_position,
          image: pictureUrl(row.image),
          updatedAt: row.updated_at,
          stock: row.stock,
        })),
        total: totalCount,
        lowVariants: total.low_variants,
        page,
        pageCount: Math.max(1, Math.ceil(totalCount / ADMIN_PRODUCTS_PAGE_SIZE)),
        counts: {
          active: Number(counts.find((row) => row.status === "active")?.count ?? 0),
          archived: Number(counts.find((row) => row.status === "archived")?.count ?? 0),
        },
      };
    },

    /** Low variants of active products: what the products list's "Low stock" counts. */
    async countLowStock(): Promise<number> {
      const row = await db
        .selectFrom("products")
        .select(sql<number>`coalesce(sum(${lowVariantCount}), 0)::int`.as("count"))
        .where("status", "=", "active")
        .executeTakeFirstOrThrow();
      return row.count;
    },

    /** Everything the edit form shows, archived or not. */
    async getProduct(id: string) {
      const row = await db
        .selectFrom("products")
        .select([
          "id",
          "slug",
          "title",
          "description",
          "price_cents",
          "status",
          "featured_position",
          "image",
          "image_width",
          "image_height",
          "gift_card",
        ])
        .where("id", "=", id)
        .executeTakeFirst();
      return (
        row && { ...row, image: pictureUrl(row.image), departmentIds: await departments.departmentIdsOfProduct(row.id) }
      );
    },

    /**
     * A new product; its picture is required. Its picture and its variants' (`variantPictures`, by row key) are
     * checked and stored before the product is written.
     */
    async createProduct(
      actor: Actor,
      input: AdminProductInput,
      picture: Uint8Array | null,
      variants?: VariantFormInput,
      variantPictures: ReadonlyMap<string, Uint8Array> = new Map(),
    ) {
      if (!picture || picture.byteLength === 0)
        throw new AppError("BAD_REQUEST", "Choose a picture for the product.", { details: { field: "picture" } });
      const stored = await storeFormPictures(picture, variants, variantPictures);
      return catalogue.createProduct(
        { ...input, image: stored.product! },
        audit(actor, "product.create", input.departmentIds, variants, stored.variants),
      );
    },

    /** Changes a product; a new picture (the product's, a variant's) replaces the old one, no picture keeps it. */
    async updateProduct(
      actor: Actor,
      id: string,
      input: AdminProductInput,
      picture: Uint8Array | null,
      variants?: VariantFormInput,
      variantPictures: ReadonlyMap<string, Uint8Array> = new Map(),
    ) {
      const stored = await storeFormPictures(picture, variants, variantPictures);
      return catalogue.updateProduct(
        id,
        { ...input, ...(stored.product ? { image: stored.product } : {}) },
        audit(actor, "product.update", input.departmentIds, variants, stored.variants),
      );
    },

    /** The product's options and variants with their stock, for the form; and its latest stock movements. */
    async getVariantsAndLedger(id: string) {
      const [{ options, variants }, onHand, ledger] = await Promise.all([
        catalogue.readOptionsAndVariants(id),
        db
          .selectFrom("product_variants")
          .select(["id", "on_hand", "low_stock_at"])
          .where("product_id", "=", id)
          .execute(),
        inventory.listLedger(id, 20),
      ]);
      const byId = new Map(onHand.map((row) => [row.id, row]));
      return {
        options,
        variants: variants.map((variant) => ({
          ...variant,
          onHand: byId.get(variant.id)?.on_hand ?? 0,
          lowStockAt: byId.get(variant.id)?.low_stock_at ?? DEFAULT_LOW_STOCK_AT,
        })),
        ledger,
      };
    },
  };
}

export type AdminProducts = ReturnType<typeof createAdminProducts>;
