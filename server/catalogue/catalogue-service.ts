import type { DB } from "../db/client";
import type { Product } from "../../shared/catalogue";
import { catalogue, PRODUCT_IMAGE_SIZE, productImagePath } from "./catalogue-data";

/**
 * Writes the catalogue into the products table. Idempotent and safe for instances starting together:
 * an upsert per product, so edits to catalogue-data.ts reach the database on the next start.
 */
export async function seedCatalogue(db: DB): Promise<void> {
  const rows = catalogue.map((entry, index) => ({
    id: entry.id,
    title: entry.title,
    price_cents: entry.priceCents,
    rating: entry.rating,
    image: productImagePath(entry.id, "webp"),
    image_width: PRODUCT_IMAGE_SIZE.width,
    image_height: PRODUCT_IMAGE_SIZE.height,
    position: index + 1,
  }));
  await db
    .insertInto("products")
    .values(rows)
    .onConflict((conflict) =>
      conflict.column("id").doUpdateSet((eb) => ({
        title: eb.ref("excluded.title"),
        price_cents: eb.ref("excluded.price_cents"),
        rating: eb.ref("excluded.rating"),
        image: eb.ref("excluded.image"),
        image_width: eb.ref("excluded.image_width"),
        image_height: eb.ref("excluded.image_height"),
        position: eb.ref("excluded.position"),
      })),
    )
    .execute();
}

const productColumns = ["id", "title", "price_cents", "rating", "image", "image_width", "image_height"] as const;

type ProductRow = { id: string; title: string; price_cents: number; rating: number; image: string; image_width: number; image_height: number };

function toProduct(row: ProductRow): Product {
  return {
    id: row.id,
    title: row.title,
    priceCents: row.price_cents,
    rating: row.rating,
    image: { src: row.image, width: row.image_width, height: row.image_height },
  };
}

export function createCatalogueService(db: DB) {
  return {
    /** The home page's products, in their shelf order. */
    async listProducts(): Promise<Product[]> {
      const rows = await db.selectFrom("products").select(productColumns).orderBy("position").execute();
      return rows.map(toProduct);
    },

    /** The products with these ids, keyed by id; unknown ids are simply absent. */
    async findProducts(ids: readonly string[]): Promise<Map<string, Product>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom("products")
        .select(productColumns)
        .where("id", "in", [...new Set(ids)])
        .execute();
      return new Map(rows.map((row) => [row.id, toProduct(row)]));
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
