import { sql, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder } from "kysely";
import type { DB, Writer } from "../db/client";
import type { Database } from "../db/schema";
import { LISTING_PAGE_SIZE, priceRangeCents, type ListingState } from "../../shared/listing";

/**
 * One listing query for every listing page (/departments/{slug}, /departments, /search): the products that pass
 * every filter, sorted, a page at a time, with the count and the facet counts. A filter is one clause on `products`
 * (`filterClauses`): a later filter (in stock, an option value) is one more clause here and one more facet query
 * beside `countByDepartment`, and the pages need nothing else. Ratings are the ones shoppers see (`shown_rating`: the
 * reviews' unrounded average, or the catalogue's rating before the first review).
 */

export interface ListingRequest {
  /** Only products in these departments (a department and its sub-departments); null: the whole catalogue. */
  departmentIds: readonly string[] | null;
  /** /search: what the text matches, and its rank (sorted by under "Featured"). */
  match?: { where: RawBuilder<boolean>; rank: RawBuilder<number> | null };
  state: ListingState;
}

export const listingColumns = ["id", "slug", "title", "price_cents", "shown_rating", "review_count", "image", "image_width", "image_height", "image_srcset"] as const;

/**
 * Whether every variant of the product is out of stock (tracked, no back-orders, nothing available): cards say so. A
 * change of it moves the catalogue's version (server/inventory/), so reads cached by version stay true.
 */
export const isOutOfStock = sql<boolean>`not exists (
  select 1 from product_variants v where v.product_id = products.id
  and (not v.tracks_stock or v.continue_selling or v.on_hand > coalesce((select sum(r.quantity) from stock_reservations r where r.variant_id = v.id and r.expires_at > now()), 0)))`.as(
  "is_out_of_stock",
);

type ProductsQuery<O> = SelectQueryBuilder<Database, "products", O>;

/** Every filter of a request as conditions on `products` (active ones only). */
function filterClauses(request: ListingRequest, { withDepartments = true } = {}) {
  return (eb: ExpressionBuilder<Database, "products">) => {
    const clauses = [eb("products.status", "=", "active")];
    if (withDepartments && request.departmentIds !== null) {
      const ids = request.departmentIds.length > 0 ? [...request.departmentIds] : ["00000000-0000-0000-0000-000000000000"];
      clauses.push(eb("products.id", "in", eb.selectFrom("product_departments").select("product_departments.product_id").where("product_departments.department_id", "in", ids)));
    }
    const { minCents, maxCents, maxInclusive } = priceRangeCents(request.state);
    if (minCents !== null) clauses.push(eb("products.price_cents", ">=", minCents));
    if (maxCents !== null) clauses.push(eb("products.price_cents", maxInclusive ? "<=" : "<", maxCents));
    if (request.state.stars !== null) clauses.push(eb("products.shown_rating", ">=", request.state.stars));
    if (request.match) clauses.push(eb.and([request.match.where]));
    return eb.and(clauses);
  };
}

function sorted<O>(query: ProductsQuery<O>, request: ListingRequest): ProductsQuery<O> {
  switch (request.state.sort) {
    case "price-asc":
      return query.orderBy("products.price_cents", "asc").orderBy("products.id");
    case "price-desc":
      return query.orderBy("products.price_cents", "desc").orderBy("products.id");
    case "review":
      return query.orderBy("products.shown_rating", "desc").orderBy(sql`products.featured_position nulls last`).orderBy("products.id");
    case "newest":
      return query.orderBy("products.created_at", "desc").orderBy("products.id");
    case "featured": {
      const ranked = request.match?.rank ? query.orderBy(request.match.rank, "desc") : query;
      return ranked.orderBy(sql`products.featured_position nulls last`).orderBy("products.shown_rating", "desc").orderBy("products.id");
    }
  }
}

/** One page of a listing and how many products pass its filters in all. */
export async function findListingPage(executor: Writer | DB, request: ListingRequest) {
  const page = request.state.page;
  const rows = await sorted(executor.selectFrom("products").select([...listingColumns, isOutOfStock, sql<string>`count(*) over ()`.as("total")]).where(filterClauses(request)), request)
    .limit(LISTING_PAGE_SIZE)
    .offset((page - 1) * LISTING_PAGE_SIZE)
    .execute();
  let total = rows[0] ? Number(rows[0].total) : 0;
  // Past the last page the window has no rows to count on: count alone (the page then answers 404 with it).
  if (!rows[0] && page > 1) {
    const counted = await executor.selectFrom("products").select((eb) => eb.fn.countAll<string>().as("count")).where(filterClauses(request)).executeTakeFirstOrThrow();
    total = Number(counted.count);
  }
  return { rows, total };
}

/**
 * How many products passing the request's filters each department holds: `by: "top"` rolls sub-departments into
 * their top-level department (/search's facet), `by: "self"` counts the departments in `only` as they are (a
 * department page's sub-departments). A product in two departments counts once in each, and once in a roll-up.
 */
export async function countByDepartment(
  executor: Writer | DB,
  request: ListingRequest,
  by: "top" | "self",
  only?: readonly string[],
): Promise<Map<string, number>> {
  if (only && only.length === 0) return new Map();
  const group = by === "top" ? sql<string>`coalesce(departments.parent_id, departments.id)` : sql<string>`departments.id`;
  let query = executor
    .selectFrom("product_departments")
    .innerJoin("departments", "departments.id", "product_departments.department_id")
    .innerJoin("products", "products.id", "product_departments.product_id")
    .select([group.as("department_id"), sql<string>`count(distinct products.id)`.as("count")])
    .where(filterClauses(request, { withDepartments: false }))
    .groupBy(group);
  if (only) query = query.where("departments.id", "in", [...only]);
  const rows = await query.execute();
  return new Map(rows.map((row) => [row.department_id, Number(row.count)]));
}
