/**
 * One listing query for every listing page (/departments/{slug}, /departments, /search): the products that pass
 * every filter, sorted, a page at a time, with the count and the facet counts. A filter is one clause on `products`
 * (`filterClauses`), and each facet (departments, option values) one more query under the same clauses. Ratings are
 * the ones shoppers see (`shown_rating`: the reviews' unrounded average, or the catalogue's rating before the first
 * review).
 */

import { sql, type ExpressionBuilder, type RawBuilder } from "kysely";
import type { DB, Writer } from "#server/db/client";
import { isVariantAvailable } from "#server/inventory/available-stock";
import type { OptionFacet } from "#shared/catalogue";
import type { Database } from "#server/db/schema";
import { LISTING_PAGE_SIZE, optionParam, priceRangeCents, type ListingState } from "#shared/listing";

/** An option filter the listing applies: the option names its parameter stands for, and the values asked for. */
export interface OptionFilter {
  param: string;
  names: readonly string[];
  values: readonly string[];
}

export interface ListingRequest {
  /** Only products in these departments (a department and its sub-departments); null: the whole catalogue. */
  departmentIds: readonly string[] | null;
  /** /search: what the text matches, and its rank (sorted by under "Featured"). */
  match?: { where: RawBuilder<boolean>; rank: RawBuilder<number> | null };
  /** The state's option filters that name options of the listed products (`withOptionFacets` resolves them). */
  optionFilters?: readonly OptionFilter[];
  state: ListingState;
}

export const listingColumns = [
  "id",
  "slug",
  "title",
  "price_cents",
  "shown_rating",
  "rating_count",
  "review_count",
  "image",
  "image_width",
  "image_height",
  "image_srcset",
] as const;

/**
 * Whether every variant of the product is out of stock (tracked, no back-orders, nothing available). Only a product
 * with `limited_stock` (every variant tracked without back-orders) can be, so the others never read reservations. A
 * change of it moves the catalogue's version (server/inventory/), so reads cached by version stay true.
 */
const outOfStock = sql<boolean>`(case when products.limited_stock then not exists (
  select 1 from product_variants v where v.product_id = products.id
  and ${isVariantAvailable}) else false end)`;

/** The column cards read to say "Out of stock". */
export const isOutOfStock = outOfStock.as("is_out_of_stock");

/** The column cards read to offer "See options" (the product's page) instead of adding the product. */
export const hasOptions = sql<boolean>`exists (select 1 from product_options o where o.product_id = products.id)`.as(
  "has_options",
);

/**
 * The products placed in any of these departments: the placements as the product's own column (kept from
 * product_departments by a trigger), so one indexed condition.
 */
function placedIn(ids: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`products.department_ids && array[${sql.join([...ids])}]::uuid[]`;
}

/**
 * Every filter of a request as conditions on `products` (active ones only); `withDepartments: false` leaves the
 * department filter out and `withoutOption` one option's filter (the facets that let a shopper switch).
 */
function filterClauses(
  request: ListingRequest,
  { withDepartments = true, withoutOption }: { withDepartments?: boolean; withoutOption?: string } = {},
) {
  return (eb: ExpressionBuilder<Database, "products">) => {
    const clauses = [eb("products.status", "=", "active")];
    if (withDepartments && request.departmentIds !== null) {
      const ids =
        request.departmentIds.length > 0 ? [...request.departmentIds] : ["00000000-0000-0000-0000-000000000000"];
      clauses.push(eb.and([placedIn(ids)]));
    }
    const { minCents, maxCents, maxInclusive } = priceRangeCents(request.state);
    if (minCents !== null) clauses.push(eb("products.price_cents", ">=", minCents));
    if (maxCents !== null) clauses.push(eb("products.price_cents", maxInclusive ? "<=" : "<", maxCents));
    if (request.state.stars !== null) clauses.push(eb("products.shown_rating", ">=", request.state.stars));
    if (request.match) clauses.push(eb.and([request.match.where]));
    if (!request.state.includeOutOfStock) clauses.push(eb.not(eb.and([outOfStock])));
    for (const filter of request.optionFilters ?? []) {
      if (filter.param === withoutOption) continue;
      clauses.push(
        eb.exists(
          eb
            .selectFrom("product_options")
            .select(sql<number>`1`.as("one"))
            .whereRef("product_options.product_id", "=", "products.id")
            .where("product_options.name", "in", [...filter.names])
            .where(sql<boolean>`product_options."values" ?| array[${sql.join([...filter.values])}]::text[]`),
        ),
      );
    }
    return eb.and(clauses);
  };
}

/** The listing's order as `order by` terms on `products`, the product's id last so that pages never overlap. */
function sortTerms(request: ListingRequest): RawBuilder<unknown>[] {
  switch (request.state.sort) {
    case "price-asc":
      return [sql`products.price_cents asc`, sql`products.id`];
    case "price-desc":
      return [sql`products.price_cents desc`, sql`products.id`];
    case "review":
      return [sql`products.shown_rating desc nulls last`, sql`products.featured_position nulls last`, sql`products.id`];
    case "newest":
      return [sql`products.created_at desc`, sql`products.id`];
    case "featured":
      return [
        ...(request.match?.rank ? [sql`${request.match.rank} desc`] : []),
        sql`products.featured_position nulls last`,
        sql`products.shown_rating desc nulls last`,
        sql`products.id`,
      ];
  }
}

function sortedBy<Q extends { orderBy(term: RawBuilder<unknown>): Q }>(
  query: Q,
  terms: readonly RawBuilder<unknown>[],
): Q {
  return terms.reduce((ordered, term) => ordered.orderBy(term), query);
}

/**
 * One page of a listing and how many products pass its filters in all. The page is picked from the listing index
 * alone (ids, sort columns and the count: migration 0027), and only its own products are then read from the table.
 */
async function findListingPage(executor: Writer | DB, request: ListingRequest) {
  const page = request.state.page;
  const terms = sortTerms(request);
  const picked = sortedBy(
    executor
      .selectFrom("products")
      .select(["products.id", sql<string>`count(*) over ()`.as("total")])
      .where(filterClauses(request)),
    terms,
  )
    .limit(LISTING_PAGE_SIZE)
    .offset((page - 1) * LISTING_PAGE_SIZE);
  const rows = await sortedBy(
    executor
      .selectFrom(picked.as("picked"))
      .innerJoin("products", "products.id", "picked.id")
      .select([
        ...listingColumns.map((column) => `products.${column}` as const),
        isOutOfStock,
        hasOptions,
        "picked.total",
      ]),
    terms,
  ).execute();
  let total = rows[0] ? Number(rows[0].total) : 0;
  // Past the last page the window has no rows to count on: count alone (the page then answers 404 with it).
  if (!rows[0] && page > 1) {
    const counted = await executor
      .selectFrom("products")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where(filterClauses(request))
      .executeTakeFirstOrThrow();
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
  const group =
    by === "top" ? sql<string>`coalesce(departments.parent_id, departments.id)` : sql<string>`departments.id`;
  // The listed products with their own departments (products.department_ids), never the placements table: counting
  // through it, the planner walked every placement of the departments (at 100,000 products, tens of thousands of rows
  // for a few hundred products listed). Counting a few departments, only their products are read (the index on
  // department_ids finds them), which keeps an unfiltered department of tens of thousands from reading the catalogue.
  const listed = executor
    .selectFrom("products")
    .select(["products.id", "products.department_ids"])
    .where(filterClauses(request, { withDepartments: false }))
    .$if(only !== undefined, (query) => query.where(placedIn(only ?? [])));
  const onlyThese = only ? sql`and departments.id in (${sql.join([...only])})` : sql``;
  const { rows } = await sql<{ department_id: string; count: string }>`
    select ${group} as department_id, count(distinct listed.id) as count
    from (${listed}) as listed cross join lateral unnest(listed.department_ids) as placed (department_id)
    join departments on departments.id = placed.department_id
    where true ${onlyThese}
    group by ${group}`.execute(executor);
  return new Map(rows.map((row) => [row.department_id, Number(row.count)]));
}

/** An option's facet, with every name the products give it ("Size", "size"): one parameter filters them all. */
interface OptionFacetWithNames extends OptionFacet {
  names: string[];
}

/** The facets a listing shows at most: the options most of its products have, and their first values. */
const MAX_OPTION_FACETS = 5;
const MAX_FACET_VALUES = 40;

/** The option values of the products passing the request's filters (but `withoutOption`'s), with counts. */
async function countOptionValues(
  executor: Writer | DB,
  request: ListingRequest,
  withoutOption?: string,
): Promise<OptionFacetWithNames[]> {
  const listed = executor.selectFrom("products").select("products.id").where(filterClauses(request, { withoutOption }));
  const { rows } = await sql<{ name: string; value: string; count: string; products: string }>`
    select o.name, v.value, count(distinct o.product_id) as count, max(count(distinct o.product_id)) over (partition by o.name) as products
    from product_options o cross join lateral jsonb_array_elements_text(o."values") with ordinality as v(value, position)
    where o.product_id in (${listed})
    group by o.name, v.value
    order by products desc, o.name, min(v.position), v.value
    limit 1000`.execute(executor);
  const facets = new Map<string, OptionFacetWithNames>();
  for (const row of rows) {
    const param = optionParam(row.name);
    let facet = facets.get(param);
    if (!facet) {
      if (facets.size === MAX_OPTION_FACETS) continue;
      facet = { name: row.name, names: [], param, values: [] };
      facets.set(param, facet);
    }
    if (!facet.names.includes(row.name)) facet.names.push(row.name);
    const known = facet.values.find((candidate) => candidate.value === row.value);
    if (known) known.count += Number(row.count);
    else if (facet.values.length < MAX_FACET_VALUES) facet.values.push({ value: row.value, count: Number(row.count) });
  }
  return [...facets.values()];
}

/**
 * The option facets of a listing, and the request with its option filters: a parameter of the query that names no
 * option of the listed products, or a value none of them offers, is ignored (a shared link's tracking parameter, an
 * option since removed). Counts are
 * under every other filter; an option's own values are counted without its own filter, so that a shopper can add a
 * second size rather than see the others drop to nothing.
 */
async function withOptionFacets(
  executor: Writer | DB,
  request: ListingRequest,
): Promise<{ request: ListingRequest; facets: OptionFacet[] }> {
  const unfiltered: OptionFacetWithNames[] = await countOptionValues(executor, { ...request, optionFilters: [] });
  const optionFilters: OptionFilter[] = [];
  for (const [param, values] of Object.entries(request.state.options)) {
    const facet = unfiltered.find((candidate) => candidate.param === param);
    const known = values.filter((value) => facet?.values.some((candidate) => candidate.value === value));
    if (facet && known.length > 0) optionFilters.push({ param, names: facet.names, values: known });
  }
  const filtered: ListingRequest = {
    ...request,
    optionFilters,
    state: {
      ...request.state,
      options: Object.fromEntries(optionFilters.map((filter) => [filter.param, [...filter.values]])),
    },
  };
  const withoutNames = (found: OptionFacetWithNames[]): OptionFacet[] =>
    found.map(({ names: _names, ...facet }) => facet);
  if (optionFilters.length === 0) return { request: filtered, facets: withoutNames(unfiltered) };
  const underOthers = await countOptionValues(executor, filtered);
  const facets: OptionFacetWithNames[] = [];
  for (const facet of unfiltered) {
    const isFiltered = optionFilters.some((filter) => filter.param === facet.param);
    // With one option filtered, its own counts are the unfiltered ones; with more, each is counted under the others.
    const counted = !isFiltered
      ? underOthers
      : optionFilters.length === 1
        ? unfiltered
        : await countOptionValues(executor, filtered, facet.param);
    const found = counted.find((candidate) => candidate.param === facet.param);
    if (found) facets.push(found);
  }
  return { request: filtered, facets: withoutNames(facets) };
}

/**
 * A listing whole: its page, its option facets and its department counts (`countDepartments`, under the request as
 * the facets resolved it). With no option in the URL the facets change nothing of the request, so the three
 * statements go out at once: on PostgreSQL's pool each runs on a connection of its own, and the page waits for the
 * slowest of them instead of their sum. With options, they are resolved first.
 */
export async function findListing(
  executor: Writer | DB,
  request: ListingRequest,
  countDepartments: (resolved: ListingRequest) => Promise<Map<string, number>>,
) {
  const hasOptions = Object.keys(request.state.options).length > 0;
  if (hasOptions) {
    const options = await withOptionFacets(executor, request);
    const page = await findListingPage(executor, options.request);
    return { ...page, options, departmentCounts: await countDepartments(options.request) };
  }
  const [options, page, departmentCounts] = await Promise.all([
    withOptionFacets(executor, request),
    findListingPage(executor, request),
    countDepartments(request),
  ]);
  return { ...page, options, departmentCounts };
}
