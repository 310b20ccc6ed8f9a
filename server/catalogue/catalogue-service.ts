// The catalogue: products, their pages and search, reads cached until the catalogue version moves, and the writes of
// products (slug history, featured positions) that the console and a CSV import make.

import { randomBytes } from "node:crypto";
import slugify from "@sindresorhus/slugify";
import {
  sql,
  type ExpressionBuilder,
  type InferResult,
  type RawBuilder,
  type Selectable,
  type Transaction,
} from "kysely";
import { jsonArrayFrom } from "kysely/helpers/postgres";
import type { DB, Writer } from "#server/db/client";
import { preparedStatement } from "@storefront/kysely-prepared";
import { inBatches } from "#server/db/in-batches";
import type { Database, ProductTable } from "#server/db/schema";
import { AppError } from "#shared/errors";
import type { VariantFormInput } from "#shared/admin-schemas";
import type {
  CatalogueProduct,
  ListingResults,
  ProductDetails,
  ProductOption,
  ProductVariant,
  SearchResults,
} from "#shared/catalogue";
import { REVIEWS_PAGE_SIZE, type ReviewView } from "#shared/reviews";
import { DEFAULT_LISTING_STATE, LISTING_PAGE_SIZE, type ListingState } from "#shared/listing";
import { countByDepartment, findListing, hasOptions, isOutOfStock, type ListingRequest } from "./catalogue-listing";
import { pictureUrl } from "#shared/shop-pictures";
import type { GiftCardKind } from "#shared/gift-cards";
import { catalogue, PRODUCT_IMAGE_SIZE, productImagePath } from "./catalogue-data";
import { availableOf, reservedOfVariant } from "#server/inventory/available-stock";
import { suggestQuery } from "./did-you-mean";

/**
 * Writes the shop's six products into an empty catalogue, and never touches one that has products: from then on the
 * table is the operator's. Instances starting together may both find it empty; the second one's rows then conflict
 * with the first one's and are skipped.
 */
export async function seedCatalogue(db: DB): Promise<void> {
  const existing = await db.selectFrom("products").select("id").limit(1).executeTakeFirst();
  if (existing) return;
  const rows = catalogue.map((entry, index) => ({
    id: entry.id,
    slug: entry.slug,
    title: entry.title,
    description: entry.description,
    price_cents: entry.priceCents,
    rating: entry.rating,
    image: productImagePath(entry.id, "webp"),
    image_width: PRODUCT_IMAGE_SIZE.width,
    image_height: PRODUCT_IMAGE_SIZE.height,
    featured_position: index + 1,
  }));
  await db
    .insertInto("products")
    .values(rows)
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

const productColumns = [
  "id",
  "slug",
  "title",
  "price_cents",
  "shown_rating",
  "review_count",
  "rating_count",
  "image",
  "image_width",
  "image_height",
  "image_srcset",
] as const;

type ProductRow = Pick<Selectable<ProductTable>, (typeof productColumns)[number]> & {
  is_out_of_stock?: boolean;
  has_options?: boolean;
};

function toProduct(row: ProductRow): CatalogueProduct {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    priceCents: row.price_cents,
    rating: row.shown_rating,
    ratingCount: row.review_count > 0 ? row.review_count : (row.rating_count ?? 0),
    image: {
      src: pictureUrl(row.image),
      width: row.image_width,
      height: row.image_height,
      ...(row.image_srcset ? { srcSet: row.image_srcset } : {}),
    },
    ...(row.is_out_of_stock ? { isOutOfStock: true } : {}),
    ...(row.has_options ? { hasOptions: true } : {}),
  };
}

/** A variant's picture columns when it shows its product's picture. */
const noPicture = { image: null, image_width: null, image_height: null, image_srcset: null };

/** A variant as baskets and payments price it, with its product and its stock now. */
export interface VariantForSale {
  product: CatalogueProduct;
  /** A gift card product's kind; null (or absent) for everything else. */
  giftCard?: GiftCardKind | null;
  /** The product's option names, in order. */
  optionNames: string[];
  variant: ProductVariant;
}

function toVariant(row: {
  id: string;
  option_values: string[];
  sku: string | null;
  price_cents: number;
  compare_at_cents: number | null;
  weight_grams: number;
  charge_tax: boolean;
  image: string | null;
  image_width: number | null;
  image_height: number | null;
  image_srcset: string | null;
  tracks_stock: boolean;
  continue_selling: boolean;
  on_hand: number;
  reserved: number;
}): ProductVariant {
  return {
    id: row.id,
    optionValues: row.option_values,
    sku: row.sku,
    priceCents: row.price_cents,
    compareAtCents: row.compare_at_cents,
    weightGrams: row.weight_grams,
    chargeTax: row.charge_tax,
    ...(row.image && row.image_width && row.image_height
      ? {
          image: {
            src: pictureUrl(row.image),
            width: row.image_width,
            height: row.image_height,
            ...(row.image_srcset ? { srcSet: row.image_srcset } : {}),
          },
        }
      : {}),
    stock: {
      tracksStock: row.tracks_stock,
      continueSelling: row.continue_selling,
      available: availableOf(row),
    },
  };
}

const variantColumns = [
  "v.id",
  "v.option_values",
  "v.sku",
  "v.price_cents",
  "v.compare_at_cents",
  "v.weight_grams",
  "v.charge_tax",
  "v.image",
  "v.image_width",
  "v.image_height",
  "v.image_srcset",
  "v.tracks_stock",
  "v.continue_selling",
  "v.on_hand",
] as const;

/** The catalogue's version as of the statement that selects it: every row of one read carries the same. */
const catalogueVersion = sql<string>`(select version from catalogue_version)`.as("catalogue_version");

/**
 * How often an instance asks whether the catalogue changed (one tiny query): another instance's edit reaches this
 * one's pages, baskets and payments within this time, and this instance's own edits at once.
 */
export const CATALOGUE_VERSION_CHECK_MS = 1_000;
/** Products kept by id for baskets and payments; past this the cache starts over (a catalogue may be 100,000). */
const MAX_CACHED_PRODUCTS = 10_000;
/** How many products the home page's second row ("More to explore") shows at most. */
export const MORE_TO_EXPLORE = 12;
type HomeList = "featured" | "more-to-explore";
/** Searches kept per catalogue version (each a page of at most LISTING_PAGE_SIZE cards): a few megabytes at most. */
const KEPT_SEARCHES = 500;
/**
 * Product pages kept per catalogue version (a product with its variants, departments, review histogram and first page
 * of reviews; an old slug's redirect; an unknown slug): a few megabytes at most, the oldest dropped first.
 */
const KEPT_PRODUCT_PAGES = 500;
/** A shopper's typo still finds the product: "ipda" is 0.4 similar to "iPad" (pg_trgm word_similarity). */
const TYPO_SIMILARITY = 0.4;
/** A sitemap holds at most 50,000 addresses (sitemaps.org); the home page is one of them. */
export const SITEMAP_MAX_PRODUCTS = 49_999;

/** What a product page's address leads to. */
export type ProductPageLookup =
  | {
      kind: "product";
      product: ProductDetails;
      /** The departments the product is in (server/departments names them from its tree). */
      departmentIds: string[];
      /** Its visible reviews by star level: the histogram, read with the product. */
      ratingCounts: { rating: number; count: number }[];
      /** The first page of its visible reviews, newest first, read with the product. */
      firstReviews: { reviews: ReviewView[]; hasNext: boolean };
    }
  | { kind: "moved"; slug: string }
  | { kind: "archived"; title: string }
  | { kind: "unknown" };

/** What an operator may change about a product. A new title moves the product to a new slug unless one is given. */
export interface ProductChanges {
  title?: string;
  description?: string;
  priceCents?: number;
  status?: "active" | "archived";
  featuredPosition?: number | null;
  /** "Gift card" on the product form: its kind, or null for an ordinary product. */
  giftCard?: GiftCardKind | null;
  slug?: string;
  /** A stored picture (server/pictures/picture-store.ts). */
  image?: { src: string; width: number; height: number; srcSet: string };
}

/** A product's editable values as a write saw them, for the audit log. */
export type ProductValues = Omit<
  Selectable<ProductTable>,
  | "search_document"
  | "created_at"
  | "updated_at"
  | "review_count"
  | "review_average"
  | "shown_rating"
  | "limited_stock"
  | "department_ids"
>;

/** Runs inside a write's transaction with the values before and after it: the audit entry commits with the change. */
export type ProductWriteHook = (
  trx: Transaction<Database>,
  before: ProductValues | null,
  after: ProductValues,
) => Promise<void>;

const editableColumns = [
  "id",
  "slug",
  "title",
  "description",
  "price_cents",
  "rating",
  "rating_count",
  "image",
  "image_width",
  "image_height",
  "image_srcset",
  "status",
  "featured_position",
  "vendor",
  "product_type",
  "tags",
  "gift_card",
] as const;

/** A product as a CSV import writes it: every column the import decides (server/imports/product-csv-import.ts). */
export interface ImportedProductValues {
  id: string;
  /** The file's URL handle, as an address. */
  slug: string;
  title: string;
  description: string;
  priceCents: number;
  status: "active" | "archived";
  vendor: string;
  productType: string;
  tags: readonly string[];
  /** The file's rating (1 to 5, decimals kept) with how many ratings it stands for; undefined: left as it is (a new
   * product has none). */
  rating?: { value: number; count: number };
  image: { src: string; width: number; height: number; srcSet: string | null };
}

/** A product's options and variants as a CSV import writes them: each variant with its id (kept or new). */
export interface ImportedOptionsAndVariants {
  productId: string;
  options: readonly { name: string; values: readonly string[] }[];
  variants: readonly {
    id: string;
    optionValues: readonly string[];
    sku: string | null;
    priceCents: number;
    compareAtCents: number | null;
    weightGrams: number;
    chargeTax: boolean;
  }[];
}

function importedColumns(product: ImportedProductValues) {
  return {
    slug: product.slug,
    title: product.title,
    description: product.description,
    price_cents: product.priceCents,
    status: product.status,
    vendor: product.vendor,
    product_type: product.productType,
    tags: JSON.stringify(product.tags),
    ...(product.rating !== undefined ? { rating: product.rating.value, rating_count: product.rating.count } : {}),
    image: product.image.src,
    image_width: product.image.width,
    image_height: product.image.height,
    image_srcset: product.image.srcSet,
  };
}

/** The columns a set of changes writes (updateProduct); a change left out writes nothing. */
function columnsOf(changes: ProductChanges) {
  return {
    title: changes.title,
    description: changes.description,
    price_cents: changes.priceCents,
    status: changes.status,
    featured_position: changes.featuredPosition,
    ...(changes.giftCard === undefined ? {} : { gift_card: changes.giftCard }),
    ...(changes.image
      ? {
          image: changes.image.src,
          image_width: changes.image.width,
          image_height: changes.image.height,
          image_srcset: changes.image.srcSet,
        }
      : {}),
  };
}

/**
 * A featured position given to a product that another product holds: the holder and those after it move up one
 * (1, 2, 3 with a new 1 become 2, 3, 4), so the home page shows the new one where it was put and loses none.
 */
async function makeRoomAtFeaturedPosition(
  trx: Transaction<Database>,
  position: number | null | undefined,
  productId: string,
): Promise<void> {
  if (position === null || position === undefined) return;
  const holders = await trx
    .selectFrom("products")
    .select("id")
    .where("featured_position", ">=", position)
    .where("id", "<>", productId)
    .forUpdate()
    .execute();
  const isTaken = await trx
    .selectFrom("products")
    .select("id")
    .where("featured_position", "=", position)
    .where("id", "<>", productId)
    .executeTakeFirst();
  if (!isTaken || holders.length === 0) return;
  await trx
    .updateTable("products")
    .set({ featured_position: sql`featured_position + 1`, updated_at: sql`now()` })
    .where("featured_position", ">=", position)
    .where("id", "<>", productId)
    .execute();
}

/** Lower-case words joined by hyphens, as product addresses are ("Apple iPad Pro 12.9" → "apple-ipad-pro-12-9"). */
export function slugFromTitle(title: string): string {
  return slugify(title, { decamelize: false }).slice(0, 100).replace(/-+$/, "");
}

export function createCatalogueService(
  db: DB,
  {
    versionCheckMs = CATALOGUE_VERSION_CHECK_MS,
    now = () => performance.now(),
  }: { versionCheckMs?: number; now?: () => number } = {},
) {
  // Every cached read was made at `knownVersion` (its own statement said so), so one instance never mixes two
  // catalogues. A newer version, seen by the periodic check or by any read, drops them all.
  let knownVersion = -1n;
  let checkedAt = -Infinity;
  let versionCheck: Promise<void> | undefined;
  /** The home page's lists (its featured shelf, "More to explore"), each read once per version. */
  const lists = new Map<HomeList, Promise<readonly CatalogueProduct[]>>();
  /** Searches' results at the known version, by what was asked (`search`). */
  const searches = new Map<string, Promise<SearchResults>>();
  /** Product pages at the known version, by slug (`productPage`). */
  const productPages = new Map<string, Promise<ProductPageLookup>>();
  /** Each product by id: the read that brought it (one read answers every id it was asked for). */
  const byId = new Map<string, Promise<ReadonlyMap<string, CatalogueProduct>>>();

  function learnVersion(version: bigint): void {
    if (version <= knownVersion) return;
    knownVersion = version;
    lists.clear();
    searches.clear();
    productPages.clear();
    byId.clear();
  }

  /** At most one version query per interval, shared by the requests that arrive meanwhile. */
  async function dropStaleReads(): Promise<void> {
    if (now() - checkedAt < versionCheckMs) return;
    versionCheck ??= db
      .selectFrom("catalogue_version")
      .select("version")
      .executeTakeFirstOrThrow()
      .then((row) => {
        learnVersion(BigInt(row.version));
        checkedAt = now();
      })
      .finally(() => {
        versionCheck = undefined;
      });
    return versionCheck;
  }

  /** A read's rows carry the version they were read at: a read at an older one is used once, never cached. */
  function isCurrent(rows: readonly { catalogue_version: string }[]): boolean {
    const version = rows[0] ? BigInt(rows[0].catalogue_version) : knownVersion;
    learnVersion(version);
    return version === knownVersion;
  }

  /**
   * Active products matching what a shopper typed, best first under "Featured", with the listing's filters and
   * sorts, a page at a time, and the top-level departments of the results with counts (the department filter left
   * out, so that a shopper can switch): full-text search on title and description, a plain query's last word also
   * a prefix ("mon" finds monitors), and websearch syntax (quotes, -word, or) taken as written. Only when that
   * finds nothing, titles a few letters off ("moniter", "ipda"), so that a typo's near misses never crowd out real
   * matches; never for a query with operators, where a near miss could bring back what it excludes. An empty query
   * lists every active product.
   */
  async function searchNow(
    rawQuery: string,
    state: ListingState,
    departmentIds: readonly string[] | null = null,
  ): Promise<SearchResults> {
    // PostgreSQL text cannot hold NUL; nothing a shopper means contains one.
    const query = rawQuery.replaceAll("\u0000", "").trim();
    const isPlain = !/["-]|\bor\b/i.test(query);
    const words = isPlain ? (query.match(/[\p{L}\p{N}]+/gu) ?? []) : [];
    // A plain query's words, the last one also as a prefix: this finds everything websearch_to_tsquery would (the
    // same words, stemmed the same way) and more, so it is the one query to match and rank by. Words are letters
    // and digits only, so joining them with & is always a valid tsquery.
    const textQuery =
      words.length > 0
        ? sql`to_tsquery('english', ${`${words.join(" & ")}:*`})`
        : sql`websearch_to_tsquery('english', ${query})`;
    const request = (match: ListingRequest["match"], forDepartments: readonly string[] | null): ListingRequest => ({
      departmentIds: forDepartments,
      match,
      state,
    });

    const answer = async (executor: Writer, match: ListingRequest["match"]) => {
      const { rows, total, options, departmentCounts } = await findListing(
        executor,
        request(match, departmentIds),
        (resolved) => countByDepartment(executor, { ...resolved, departmentIds: null }, "top"),
      );
      return {
        rows,
        total,
        facets: departmentCounts,
        optionFacets: options.facets,
        appliedOptions: options.request.state.options,
      };
    };
    const fullText =
      query === ""
        ? undefined
        : {
            where: sql<boolean>`search_document @@ ${textQuery}`,
            rank: sql<number>`ts_rank(search_document, ${textQuery})`,
          };
    let found = await answer(db, fullText);
    if (found.total === 0 && found.facets.size === 0 && words.length > 0) {
      found = await db.transaction().execute(async (trx) => {
        // The `<%` operator (and so its trigram index) reads its threshold from this setting, in this transaction.
        await sql`select set_config('pg_trgm.word_similarity_threshold', ${String(TYPO_SIMILARITY)}, true)`.execute(
          trx,
        );
        return answer(trx, {
          where: sql<boolean>`${query} <% title`,
          rank: sql<number>`word_similarity(${query}, title)`,
        });
      });
    }
    return {
      query,
      products: found.rows.map(toProduct),
      total: found.total,
      page: state.page,
      pageCount: Math.ceil(found.total / LISTING_PAGE_SIZE),
      departmentCounts: Object.fromEntries(found.facets),
      optionFacets: found.optionFacets,
      appliedOptions: found.appliedOptions,
    };
  }

  const activeProducts = () =>
    db
      .selectFrom("products")
      .select([...productColumns, isOutOfStock, hasOptions, catalogueVersion])
      .where("status", "=", "active");

  async function cachedList(
    name: HomeList,
    query: () => Promise<(ProductRow & { catalogue_version: string })[]>,
  ): Promise<readonly CatalogueProduct[]> {
    await dropStaleReads();
    const cached = lists.get(name);
    if (cached) return cached;
    const read: Promise<readonly CatalogueProduct[]> = query()
      .then((rows) => {
        // An empty answer carries no version; it is kept all the same: this read began after the version it is kept
        // under was learnt (a newer one clears the entry, in flight or not), so it can only be newer than that.
        if (!isCurrent(rows) && lists.get(name) === read) lists.delete(name);
        return Object.freeze(rows.map((row) => Object.freeze(toProduct(row))));
      })
      .catch((error: unknown) => {
        // A failed read (the database is down) is not kept: the next request asks again. Whoever awaits it gets the error.
        if (lists.get(name) === read) lists.delete(name);
        throw error;
      });
    lists.set(name, read);
    return read;
  }

  const listFeatured = () =>
    cachedList("featured", () =>
      activeProducts().where("featured_position", "is not", null).orderBy("featured_position").orderBy("id").execute(),
    );

  async function findProducts(ids: readonly string[]): Promise<Map<string, CatalogueProduct>> {
    await dropStaleReads();
    const missing = [...new Set(ids)].filter((id) => !byId.has(id));
    if (missing.length > 0) {
      if (byId.size + missing.length > MAX_CACHED_PRODUCTS) byId.clear();
      const read: Promise<ReadonlyMap<string, CatalogueProduct>> = db
        .selectFrom("products")
        .select([...productColumns, isOutOfStock, hasOptions, catalogueVersion])
        .where("id", "in", missing)
        .where("status", "=", "active")
        .execute()
        .then((rows) => {
          const cacheable = isCurrent(rows);
          const found = new Map(rows.map((row) => [row.id, Object.freeze(toProduct(row))]));
          // Unknown ids are not remembered: only products are.
          for (const id of missing) if (!cacheable || !found.has(id)) byId.delete(id);
          return found;
        })
        .catch((error: unknown) => {
          // A failed read (the database is down) is not kept: the next request asks again. Whoever awaits it gets the error.
          for (const id of missing) if (byId.get(id) === read) byId.delete(id);
          throw error;
        });
      for (const id of missing) byId.set(id, read);
      await read;
    }
    const found = new Map<string, CatalogueProduct>();
    for (const id of ids) {
      const product = (await byId.get(id))?.get(id);
      if (product) found.set(id, product);
    }
    return found;
  }

  /** Variants of active products with their product, option names and stock now: `findVariants`' statement. */
  function variantsForSale() {
    return (
      db
        .selectFrom("product_variants as v")
        .innerJoin("products", "products.id", "v.product_id")
        .select([
          "products.id as product_id",
          "products.slug",
          "products.title",
          "products.price_cents as product_price_cents",
          "products.shown_rating",
          "products.review_count",
          "products.rating_count",
          "products.image as product_image",
          "products.image_width as product_image_width",
          "products.image_height as product_image_height",
          "products.image_srcset as product_image_srcset",
          "products.gift_card",
          ...variantColumns,
          reservedOfVariant.as("reserved"),
        ])
        .select(
          sql<
            string[] | null
          >`(select jsonb_agg(o.name order by o.position) from product_options o where o.product_id = products.id)`.as(
            "option_names",
          ),
        )
        // Written into the SQL, not sent as a value: the basket's statement that embeds this one is prepared once.
        .where("products.status", "=", sql.lit("active"))
    );
  }

  /** A product's first variant for sale, or the one a request names: every add to a basket reads one, built once. */
  const firstVariantOfProduct = preparedStatement(db, ["productId"], (_db, values: { productId: string }) =>
    variantsForSale()
      .where("v.product_id", "=", values.productId)
      .orderBy("v.position")
      .orderBy("v.id")
      .limit(sql.lit(1)),
  );
  const variantOfProduct = preparedStatement(
    db,
    ["productId", "variantId"],
    (_db, values: { productId: string; variantId: string }) =>
      variantsForSale()
        .where("v.product_id", "=", values.productId)
        .where("v.id", "=", values.variantId)
        .limit(sql.lit(1)),
  );

  type VariantForSaleRow = InferResult<ReturnType<typeof variantsForSale>>[number];

  function toVariantForSale(row: VariantForSaleRow): VariantForSale {
    return {
      product: toProduct({
        id: row.product_id,
        slug: row.slug,
        title: row.title,
        price_cents: row.product_price_cents,
        shown_rating: row.shown_rating,
        review_count: row.review_count,
        rating_count: row.rating_count,
        image: row.product_image,
        image_width: row.product_image_width,
        image_height: row.product_image_height,
        image_srcset: row.product_image_srcset,
      }),
      giftCard: row.gift_card,
      optionNames: row.option_names ?? [],
      variant: toVariant(row),
    };
  }

  /**
   * A product's options and variants (with their stock now), in order, as two JSON arrays of the statement that reads
   * the product: one round trip for the product page, not three.
   */
  function optionsAndVariantsOf(eb: ExpressionBuilder<Database, "products">) {
    return [
      jsonArrayFrom(
        eb
          .selectFrom("product_options")
          .select(["product_options.name", "product_options.values"])
          .whereRef("product_options.product_id", "=", "products.id")
          .orderBy("product_options.position"),
      ).as("options"),
      jsonArrayFrom(
        eb
          .selectFrom("product_variants as v")
          .select([...variantColumns, reservedOfVariant.as("reserved")])
          .whereRef("v.product_id", "=", "products.id")
          .orderBy("v.position")
          .orderBy("v.id"),
      ).as("variants"),
    ] as const;
  }

  function toOptionsAndVariants(row: {
    options: { name: string; values: string[] }[];
    variants: Parameters<typeof toVariant>[0][];
  }): { options: ProductOption[]; variants: ProductVariant[] } {
    return {
      options: row.options.map((option) => ({ name: option.name, values: option.values })),
      variants: row.variants.map(toVariant),
    };
  }

  /** A product's options and variants (with their stock now), in order. */
  async function readOptionsAndVariants(
    productId: string,
  ): Promise<{ options: ProductOption[]; variants: ProductVariant[] }> {
    const row = await db
      .selectFrom("products")
      .select((eb) => optionsAndVariantsOf(eb))
      .where("products.id", "=", productId)
      .executeTakeFirst();
    return row ? toOptionsAndVariants(row) : { options: [], variants: [] };
  }

  /** What /products/{slug} shows: the product, a redirect from an old slug, or why there is none, read now. */
  async function readProductPage(slug: string): Promise<ProductPageLookup> {
    const row = await db
      .selectFrom("products")
      .select((eb) => [
        ...productColumns,
        isOutOfStock,
        hasOptions,
        "description",
        "status",
        "gift_card",
        ...optionsAndVariantsOf(eb),
        // The page's departments and review histogram in the same statement: one round trip, not three.
        sql<string[]>`array(select pd.department_id from product_departments pd where pd.product_id = products.id)`.as(
          "department_ids",
        ),
        jsonArrayFrom(
          eb
            .selectFrom("reviews")
            .select(["reviews.rating", sql<number>`count(*)::int`.as("count")])
            .whereRef("reviews.product_id", "=", "products.id")
            .where("reviews.is_visible", "=", true)
            .groupBy("reviews.rating"),
        ).as("rating_counts"),
        // And the first page of reviews (one more than a page: whether there is a next).
        jsonArrayFrom(
          eb
            .selectFrom("reviews")
            .select(["id", "rating", "headline", "body", "reviewer_name", "created_at"])
            .whereRef("reviews.product_id", "=", "products.id")
            .where("reviews.is_visible", "=", true)
            .orderBy("reviews.created_at", "desc")
            .orderBy("reviews.id", "desc")
            .limit(REVIEWS_PAGE_SIZE + 1),
        ).as("first_reviews"),
      ])
      .where("slug", "=", slug)
      .executeTakeFirst();
    if (row) {
      if (row.status !== "active") return { kind: "archived", title: row.title };
      const { options, variants } = toOptionsAndVariants(row);
      return {
        kind: "product",
        product: {
          ...toProduct(row),
          description: row.description,
          options,
          variants,
          ...(row.gift_card ? { giftCard: row.gift_card } : {}),
        },
        departmentIds: row.department_ids,
        ratingCounts: row.rating_counts,
        firstReviews: {
          reviews: row.first_reviews.slice(0, REVIEWS_PAGE_SIZE).map((review) => ({
            id: review.id,
            rating: Number(review.rating),
            headline: review.headline,
            body: review.body,
            reviewerName: review.reviewer_name,
            // JSON carries the time as text; the page shows it as the reviews' own read does.
            createdAt: new Date(review.created_at).toISOString(),
          })),
          hasNext: row.first_reviews.length > REVIEWS_PAGE_SIZE,
        },
      };
    }
    const moved = await db
      .selectFrom("product_slug_history")
      .innerJoin("products", "products.id", "product_slug_history.product_id")
      .select("products.slug")
      .where("product_slug_history.slug", "=", slug)
      .executeTakeFirst();
    return moved ? { kind: "moved", slug: moved.slug } : { kind: "unknown" };
  }

  return {
    readOptionsAndVariants,

    /**
     * The console's options and variants of a product, in the product's own write transaction: options replaced,
     * one variant per combination (an existing one keeps its id, and so its baskets and stock, when its values are
     * the same), variants of combinations no longer offered removed. A SKU another product's variant holds is refused
     * under its field. A row's weight is written; its picture is the one in `pictures` (by the row's key, stored
     * already: server/pictures/picture-store.ts), none when the row says "Remove picture", else the one it had. Answers
     * each row's variant id, for the stock to be set (server/inventory/).
     */
    async saveOptionsAndVariants(
      trx: Transaction<Database>,
      productId: string,
      productPriceCents: number,
      input: VariantFormInput,
      pictures: ReadonlyMap<string, NonNullable<ProductChanges["image"]>> = new Map(),
    ): Promise<Map<string, string>> {
      await trx.deleteFrom("product_options").where("product_id", "=", productId).execute();
      if (input.options.length > 0) {
        await trx
          .insertInto("product_options")
          .values(
            input.options.map((option, index) => ({
              product_id: productId,
              position: index + 1,
              name: option.name,
              values: JSON.stringify(option.values),
            })),
          )
          .execute();
      }
      const existing = await trx
        .selectFrom("product_variants")
        .select(["id", "option_values"])
        .where("product_id", "=", productId)
        .execute();
      const byKey = new Map(existing.map((row) => [row.option_values.join("|"), row.id]));
      const ids = new Map<string, string>();
      // SKUs of the variants being kept or removed are freed first, so two rows may swap theirs.
      await trx.updateTable("product_variants").set({ sku: null }).where("product_id", "=", productId).execute();
      for (const [position, variant] of input.variants.entries()) {
        // Without options, the one variant is the default one (whose id is the product's) whatever it held before.
        const id = byKey.get(variant.key) ?? (input.options.length === 0 ? productId : randomBytes(6).toString("hex"));
        ids.set(variant.key, id);
        if (variant.sku) {
          const taken = await trx
            .selectFrom("product_variants")
            .select("product_id")
            .where("sku", "=", variant.sku)
            .where("id", "<>", id)
            .executeTakeFirst();
          if (taken)
            throw new AppError("BAD_REQUEST", "This SKU is already used by another variant.", {
              details: { field: `v:${variant.key}:sku` },
            });
        }
        const picture = pictures.get(variant.key);
        const pictureColumns = picture
          ? {
              image: picture.src,
              image_width: picture.width,
              image_height: picture.height,
              image_srcset: picture.srcSet,
            }
          : variant.removePicture
            ? noPicture
            : {};
        const values = {
          position,
          option_values: JSON.stringify(variant.optionValues),
          sku: variant.sku,
          price_cents: variant.priceCents ?? productPriceCents,
          compare_at_cents: variant.compareAtCents,
          weight_grams: variant.weightGrams,
          ...pictureColumns,
        };
        await trx
          .insertInto("product_variants")
          .values({ id, product_id: productId, ...noPicture, ...values })
          .onConflict((conflict) => conflict.column("id").doUpdateSet({ ...values, updated_at: sql`now()` }))
          .execute();
      }
      const kept = [...ids.values()];
      await trx
        .deleteFrom("product_variants")
        .where("product_id", "=", productId)
        .where("id", "not in", kept)
        .execute();
      await sql`update catalogue_version set version = version + 1`.execute(trx);
      checkedAt = -Infinity;
      return ids;
    },

    /**
     * Variants of active products by id, with their product, option names and stock now (never cached: stock moves
     * with every sale). Unknown ids, and variants of archived products, are absent.
     */
    async findVariants(variantIds: readonly string[]): Promise<Map<string, VariantForSale>> {
      const ids = [...new Set(variantIds)];
      if (ids.length === 0) return new Map();
      const rows = await variantsForSale().where("v.id", "in", ids).execute();
      return new Map(rows.map((row) => [row.id, toVariantForSale(row)]));
    },

    /**
     * The variants for sale whose ids a caller's subquery selects, as one JSON column of the caller's own statement
     * (a basket's lines and their variants in one snapshot and one round trip); `variantsForSaleFrom` reads it.
     */
    variantsForSaleColumn(variantIds: RawBuilder<string>) {
      return jsonArrayFrom(variantsForSale().where("v.id", "in", variantIds));
    },

    /** What `variantsForSaleColumn` read, keyed by variant id, as `findVariants` gives it. */
    variantsForSaleFrom(rows: readonly VariantForSaleRow[]): Map<string, VariantForSale> {
      return new Map(rows.map((row) => [row.id, toVariantForSale(row)]));
    },

    /**
     * One variant of an active product, as `findVariants` reads it: the one named, if it is the product's own, or
     * the product's first when none is named (a product without options has only that one). One statement: a basket
     * change asks it before anything else.
     */
    async findVariantOfProduct(productId: string, variantId?: string): Promise<VariantForSale | undefined> {
      const [row] = (
        variantId === undefined
          ? await firstVariantOfProduct({ productId })
          : await variantOfProduct({ productId, variantId })
      ).rows;
      return row && toVariantForSale(row);
    },

    /** The home page's products: the active featured ones, in their shelf order. */
    listProducts: listFeatured,

    /** The home page's "More to explore": the newest active products that are not featured, at most MORE_TO_EXPLORE. */
    listMoreToExplore: () =>
      cachedList("more-to-explore", () =>
        activeProducts()
          .where("featured_position", "is", null)
          .orderBy("created_at", "desc")
          .orderBy("id")
          .limit(MORE_TO_EXPLORE)
          .execute(),
      ),

    /** A write elsewhere (a review) changed products: this instance asks for the version at its next read. */
    noteCatalogueWrite(): void {
      checkedAt = -Infinity;
    },

    /** The catalogue's version as this instance knows it (checked at most once a CATALOGUE_VERSION_CHECK_MS). */
    async currentVersion(): Promise<bigint> {
      await dropStaleReads();
      return knownVersion;
    },

    /** Another module wrote to the catalogue's tables (departments): ask for the version on the next read. */
    noteWrite(): void {
      checkedAt = -Infinity;
    },

    /** The active products with these ids, keyed by id; unknown and archived ids are simply absent. */
    findProducts,

    /** One active product by id, as baskets and payments price it. */
    async getProduct(id: string): Promise<CatalogueProduct | undefined> {
      return (await findProducts([id])).get(id);
    },

    /** What /products/{slug} shows: the product, a redirect from an old slug, or why there is none. Always fresh. */
    findProductPage: readProductPage,

    /**
     * What `readProductPage` finds, kept per catalogue version as searches are: the version moves whenever what the
     * page says changes (a price, a variant's availability, a review written or hidden, a department renamed), so a
     * shopper's product page reads only what is theirs. At most KEPT_PRODUCT_PAGES are kept, the oldest dropped first.
     */
    async productPage(slug: string): Promise<ProductPageLookup> {
      await dropStaleReads();
      const kept = productPages.get(slug);
      if (kept) return kept;
      const read = readProductPage(slug).catch((error: unknown) => {
        // A failed read (the database is down) is not kept: the next request asks again.
        if (productPages.get(slug) === read) productPages.delete(slug);
        throw error;
      });
      if (productPages.size >= KEPT_PRODUCT_PAGES) productPages.delete(productPages.keys().next().value!);
      productPages.set(slug, read);
      return read;
    },

    /**
     * What `searchNow` finds, kept per catalogue version as the home page's shelves are: a shopper's search reads the
     * same rows a guest's page was rendered from, and only the first of many identical searches asks the database.
     * The version moves whenever what a result says changes (a price, a title, a product sold out), so a result is
     * never older than the version check's interval. At most KEPT_SEARCHES are kept, the oldest dropped first.
     */
    async search(
      rawQuery: string,
      state: ListingState,
      departmentIds: readonly string[] | null = null,
    ): Promise<SearchResults> {
      await dropStaleReads();
      const key = JSON.stringify([rawQuery, state, departmentIds]);
      const kept = searches.get(key);
      if (kept) return kept;
      const read = searchNow(rawQuery, state, departmentIds).catch((error: unknown) => {
        // A failed read (the database is down) is not kept: the next request asks again.
        if (searches.get(key) === read) searches.delete(key);
        throw error;
      });
      if (searches.size >= KEPT_SEARCHES) searches.delete(searches.keys().next().value!);
      searches.set(key, read);
      return read;
    },

    /**
     * A department's listing (its products and its sub-departments'; the whole catalogue for null), and how many
     * of them each of `countIn` holds (its sub-departments), all under the state's filters.
     */
    async listDepartment(
      departmentIds: readonly string[] | null,
      state: ListingState,
      countIn: readonly string[] = [],
    ): Promise<ListingResults> {
      const { rows, total, options, departmentCounts } = await findListing(db, { departmentIds, state }, (resolved) =>
        countByDepartment(db, resolved, "self", countIn),
      );
      return {
        products: rows.map(toProduct),
        total,
        page: state.page,
        pageCount: Math.ceil(total / LISTING_PAGE_SIZE),
        departmentCounts: Object.fromEntries(departmentCounts),
        optionFacets: options.facets,
        appliedOptions: options.request.state.options,
      };
    },

    /**
     * A CSV import's products, in the import's transaction (server/imports/product-csv-import.ts): the new ones
     * inserted in batches, each at its own address (its handle, which no product holds: the import matched it
     * otherwise), the changed ones updated; an address a product leaves keeps answering with a redirect.
     */
    async writeImportedProducts(
      trx: Transaction<Database>,
      {
        created,
        updated,
      }: {
        created: readonly ImportedProductValues[];
        updated: readonly (ImportedProductValues & { previousSlug: string })[];
      },
    ): Promise<void> {
      for (const batch of inBatches(created, 500)) {
        await trx
          .deleteFrom("product_slug_history")
          .where(
            "slug",
            "in",
            batch.map((product) => product.slug),
          )
          .execute();
        await trx
          .insertInto("products")
          .values(
            batch.map((product) => ({
              id: product.id,
              ...importedColumns(product),
              featured_position: null,
            })),
          )
          .execute();
      }
      for (const product of updated) {
        if (product.slug !== product.previousSlug) {
          await trx
            .insertInto("product_slug_history")
            .values({ slug: product.previousSlug, product_id: product.id })
            .onConflict((conflict) =>
              conflict.column("slug").doUpdateSet({ product_id: product.id, retired_at: sql`now()` }),
            )
            .execute();
          await trx.deleteFrom("product_slug_history").where("slug", "=", product.slug).execute();
        }
        await trx
          .updateTable("products")
          .set({ ...importedColumns(product), updated_at: sql`now()` })
          .where("id", "=", product.id)
          .execute();
      }
      checkedAt = -Infinity;
    },

    /**
     * A CSV import's options and variants, for each product it created or whose options or variants it changed, in
     * the import's transaction: options replaced, variants written by id (the import keeps an existing variant's id
     * when its values are the same, so its baskets and stock stay), and the product's other variants removed. SKUs
     * are checked by the import against every other product first.
     */
    async writeImportedVariants(
      trx: Transaction<Database>,
      products: readonly ImportedOptionsAndVariants[],
    ): Promise<void> {
      for (const batch of inBatches(products, 200)) {
        const ids = batch.map((product) => product.productId);
        await trx.deleteFrom("product_options").where("product_id", "in", ids).execute();
        const options = batch.flatMap((product) =>
          product.options.map((option, index) => ({
            product_id: product.productId,
            position: index + 1,
            name: option.name,
            values: JSON.stringify(option.values),
          })),
        );
        for (const rows of inBatches(options, 1000)) await trx.insertInto("product_options").values(rows).execute();
        // SKUs of the variants being kept or removed are freed first, so two variants may swap theirs.
        await trx
          .updateTable("product_variants")
          .set({ sku: null })
          .where("product_id", "in", ids)
          .where("sku", "is not", null)
          .execute();
        const variants = batch.flatMap((product) =>
          product.variants.map((variant, position) => ({
            id: variant.id,
            product_id: product.productId,
            position,
            option_values: JSON.stringify(variant.optionValues),
            sku: variant.sku,
            price_cents: variant.priceCents,
            compare_at_cents: variant.compareAtCents,
            weight_grams: variant.weightGrams,
            charge_tax: variant.chargeTax,
          })),
        );
        for (const rows of inBatches(variants, 500)) {
          await trx
            .insertInto("product_variants")
            .values(
              rows.map((row) => ({ ...row, image: null, image_width: null, image_height: null, image_srcset: null })),
            )
            .onConflict((conflict) =>
              conflict.column("id").doUpdateSet((eb) => ({
                position: eb.ref("excluded.position"),
                option_values: eb.ref("excluded.option_values"),
                sku: eb.ref("excluded.sku"),
                price_cents: eb.ref("excluded.price_cents"),
                compare_at_cents: eb.ref("excluded.compare_at_cents"),
                weight_grams: eb.ref("excluded.weight_grams"),
                charge_tax: eb.ref("excluded.charge_tax"),
                updated_at: sql`now()`,
              })),
            )
            .execute();
        }
        const kept = variants.map((variant) => variant.id);
        await trx.deleteFrom("product_variants").where("product_id", "in", ids).where("id", "not in", kept).execute();
      }
      if (products.length > 0) await sql`update catalogue_version set version = version + 1`.execute(trx);
      checkedAt = -Infinity;
    },

    /**
     * Gives variants pictures of their own (the demo catalogue's colours; the console's form sets them with the rest of
     * a product). Only the ones that change are written; their ids are returned.
     */
    async setVariantPictures(
      pictures: readonly { variantId: string; image: NonNullable<ProductChanges["image"]> }[],
    ): Promise<string[]> {
      const changed: string[] = [];
      await db.transaction().execute(async (trx) => {
        for (const { variantId, image } of pictures) {
          const updated = await trx
            .updateTable("product_variants")
            .set({
              image: image.src,
              image_width: image.width,
              image_height: image.height,
              image_srcset: image.srcSet,
              updated_at: sql`now()`,
            })
            .where("id", "=", variantId)
            .where((eb) => eb("image", "is", null).or("image", "<>", image.src))
            .executeTakeFirst();
          if (updated.numUpdatedRows > 0n) changed.push(variantId);
        }
        if (changed.length > 0) await sql`update catalogue_version set version = version + 1`.execute(trx);
      });
      checkedAt = -Infinity;
      return changed;
    },

    /** Deletes products (an import taken back): their departments go with them; orders keep their own copies. */
    async deleteProducts(ids: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0;
      const deleted = await db
        .deleteFrom("products")
        .where("id", "in", [...ids])
        .executeTakeFirst();
      checkedAt = -Infinity;
      return Number(deleted.numDeletedRows);
    },

    /**
     * For a search that found nothing: the query mended from the catalogue's own words ("stnad mixr" -> "stand
     * mixer"), only when the mended query finds something, and a few featured products to carry on from.
     */
    async searchFallback(rawQuery: string): Promise<{ suggestion: string | null; featured: CatalogueProduct[] }> {
      const featuredProducts = (await listFeatured()).slice(0, 4);
      const query = rawQuery.replaceAll("\u0000", "").trim().slice(0, 200);
      if (query === "" || /["-]|\bor\b/i.test(query)) return { suggestion: null, featured: [...featuredProducts] };
      const words = await sql<{ word: string; uses: string }>`
        select word, count(*) as uses
          from products, regexp_split_to_table(lower(title || ' ' || description), '[^[:alnum:]]+') as word
         where status = 'active' and length(word) >= 3
         group by word
         order by count(*) desc
         limit 20000`.execute(db);
      const suggestion = suggestQuery(query, new Map(words.rows.map((row) => [row.word, Number(row.uses)])));
      const found = suggestion ? (await this.search(suggestion, DEFAULT_LISTING_STATE)).total > 0 : false;
      return { suggestion: found ? suggestion : null, featured: [...featuredProducts] };
    },

    /** Every active product's page, for the sitemap: at most SITEMAP_MAX_PRODUCTS, featured first. */
    async listProductPages(): Promise<{ slug: string; updatedAt: Date }[]> {
      const rows = await db
        .selectFrom("products")
        .select(["slug", "updated_at"])
        .where("status", "=", "active")
        .orderBy(sql`featured_position nulls last`)
        .orderBy("id")
        .limit(SITEMAP_MAX_PRODUCTS)
        .execute();
      return rows.map((row) => ({ slug: row.slug, updatedAt: row.updated_at }));
    },

    /**
     * Changes a product (the operator console's write). A slug it leaves keeps answering with a redirect; a slug
     * another product holds is made unique with this product's id. This instance serves the change at once.
     */
    async updateProduct(id: string, changes: ProductChanges, onWrite?: ProductWriteHook): Promise<ProductDetails> {
      const updated = await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom("products")
          .select(editableColumns)
          .where("id", "=", id)
          .forUpdate()
          .executeTakeFirst();
        if (!current) throw new AppError("NOT_FOUND", "There is no product with that id.");
        const wanted =
          changes.slug !== undefined
            ? slugFromTitle(changes.slug)
            : changes.title !== undefined
              ? slugFromTitle(changes.title)
              : current.slug;
        if (wanted === "") throw new AppError("BAD_REQUEST", "A product's address needs at least one letter or digit.");
        const taken = await trx
          .selectFrom("products")
          .select("id")
          .where("slug", "=", wanted)
          .where("id", "<>", id)
          .executeTakeFirst();
        const slug = taken ? `${wanted}-${slugFromTitle(id)}` : wanted;
        if (slug !== current.slug) {
          await trx
            .insertInto("product_slug_history")
            .values({ slug: current.slug, product_id: id })
            .onConflict((conflict) => conflict.column("slug").doUpdateSet({ product_id: id, retired_at: sql`now()` }))
            .execute();
          await trx.deleteFrom("product_slug_history").where("slug", "=", slug).execute();
        }
        if (changes.featuredPosition !== current.featured_position)
          await makeRoomAtFeaturedPosition(trx, changes.featuredPosition, id);
        const after = await trx
          .updateTable("products")
          .set({
            slug,
            ...columnsOf(changes),
            updated_at: sql`now()`,
          })
          .where("id", "=", id)
          .returning(editableColumns)
          .executeTakeFirstOrThrow();
        await onWrite?.(trx, current, after);
        const figures = await trx
          .selectFrom("products")
          .select(["shown_rating", "review_count", "rating_count"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        return { ...after, ...figures };
      });
      checkedAt = -Infinity;
      return { ...toProduct(updated), description: updated.description, ...(await readOptionsAndVariants(id)) };
    },

    /**
     * Adds a product (the operator console's). Its address comes from its title, made unique with its id when
     * another product holds it, as updateProduct does.
     */
    async createProduct(
      values: Required<
        Pick<ProductChanges, "title" | "description" | "priceCents" | "status" | "featuredPosition" | "image">
      > & { id?: string; giftCard?: GiftCardKind | null },
      onWrite?: ProductWriteHook,
    ): Promise<ProductDetails> {
      // An import keeps its own ids (so that importing again updates); the console's products get a random one.
      const id = values.id ?? randomBytes(6).toString("hex");
      const wanted = slugFromTitle(values.title);
      if (wanted === "") throw new AppError("BAD_REQUEST", "A product's address needs at least one letter or digit.");
      const created = await db.transaction().execute(async (trx) => {
        const taken = await trx.selectFrom("products").select("id").where("slug", "=", wanted).executeTakeFirst();
        const slug = taken ? `${wanted}-${id}` : wanted;
        await trx.deleteFrom("product_slug_history").where("slug", "=", slug).execute();
        await makeRoomAtFeaturedPosition(trx, values.featuredPosition, id);
        const after = await trx
          .insertInto("products")
          .values({
            id,
            slug,
            title: values.title,
            description: values.description,
            price_cents: values.priceCents,
            status: values.status,
            featured_position: values.featuredPosition,
            gift_card: values.giftCard ?? null,
            image: values.image.src,
            image_width: values.image.width,
            image_height: values.image.height,
            image_srcset: values.image.srcSet,
          })
          .returning(editableColumns)
          .executeTakeFirstOrThrow();
        await onWrite?.(trx, null, after);
        return { ...after, shown_rating: after.rating, review_count: 0 };
      });
      checkedAt = -Infinity;
      return { ...toProduct(created), description: created.description, ...(await readOptionsAndVariants(id)) };
    },
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
