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

/**
 * How long a read of the products table serves later requests. The catalogue changes with a deploy (the seed above
 * runs at every start) or, rarely, by hand in the database: a change reaches every page within this time. Every
 * page, basket answer and payment reads prices from here, so one instance never shows two prices at once.
 */
export const CATALOGUE_CACHE_MS = 5_000;

export function createCatalogueService(
  db: DB,
  { cacheMs = CATALOGUE_CACHE_MS, now = () => performance.now() }: { cacheMs?: number; now?: () => number } = {},
) {
  // The last read, or the one under way: concurrent requests share a single query.
  let cached: { products: Promise<readonly Product[]>; readAt: number } | undefined;

  function readProducts(): Promise<readonly Product[]> {
    if (cached && now() - cached.readAt < cacheMs) return cached.products;
    const entry = {
      readAt: now(),
      products: db
        .selectFrom("products")
        .select(productColumns)
        .orderBy("position")
        .execute()
        .then((rows) => Object.freeze(rows.map((row) => Object.freeze(toProduct(row))))),
    };
    // A failed read (the database is down) is not kept: the next request asks again.
    entry.products.catch(() => {
      if (cached === entry) cached = undefined;
    });
    cached = entry;
    return entry.products;
  }

  return {
    /** The home page's products, in their shelf order. */
    listProducts: readProducts,

    /** The products with these ids, keyed by id; unknown ids are simply absent. */
    async findProducts(ids: readonly string[]): Promise<Map<string, Product>> {
      if (ids.length === 0) return new Map();
      const wanted = new Set(ids);
      return new Map((await readProducts()).filter((product) => wanted.has(product.id)).map((product) => [product.id, product]));
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
