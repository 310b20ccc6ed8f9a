// A listing page's state (sort, filters, page) as a query string every shopper can share and a crawler can follow.

export { departmentPath } from "./departments";

/**
 * A listing page's state (/departments/{slug}, /search) as a plain query string: sort, filters and page. Every state
 * is a URL a shopper can share and a crawler can follow; a value the shop does not know is ignored, never an error.
 */

/** Products on one listing page. */
export const LISTING_PAGE_SIZE = 24;
/** The last page anyone reaches by "Next" (12,000 products); a larger number is a page past the end. */
export const MAX_LISTING_PAGE = 500;
/** The largest price a Min or Max field takes, in whole dollars; larger is ignored. */
export const MAX_PRICE_DOLLARS = 1_000_000;

export const SORT_OPTIONS = [
  { value: "featured", label: "Featured" },
  { value: "price-asc", label: "Price: Low to High" },
  { value: "price-desc", label: "Price: High to Low" },
  { value: "review", label: "Avg. Customer Review" },
  { value: "newest", label: "Newest Arrivals" },
] as const;
export type ListingSort = (typeof SORT_OPTIONS)[number]["value"];

/** The price links: `price=25-50` is $25.00 up to (not including) $50.00; `200-` has no top. */
export const PRICE_BUCKETS = [
  { value: "0-25", label: "Under $25", minCents: null, maxCents: 25_00 },
  { value: "25-50", label: "$25 to $50", minCents: 25_00, maxCents: 50_00 },
  { value: "50-100", label: "$50 to $100", minCents: 50_00, maxCents: 100_00 },
  { value: "100-200", label: "$100 to $200", minCents: 100_00, maxCents: 200_00 },
  { value: "200-", label: "$200 & Above", minCents: 200_00, maxCents: null },
] as const;
export type PriceBucket = (typeof PRICE_BUCKETS)[number]["value"];

/** "4 Stars & Up" … "1 Star & Up": the product's average rating at least this. */
export const STAR_FILTERS = [4, 3, 2, 1] as const;
export type StarFilter = (typeof STAR_FILTERS)[number];

export function starFilterLabel(stars: StarFilter): string {
  return `${stars} ${stars === 1 ? "Star" : "Stars"} & Up`;
}

/** The query parameters the listing itself reads: any other parameter may name a product option (`size=M`). */
const LISTING_PARAMS = new Set(["q", "sort", "price", "min", "max", "rating", "department", "page", "stock"]);
/** At most this many option filters, of this many values each, are read from a query; more is ignored. */
export const MAX_OPTION_FILTERS = 3;
export const MAX_OPTION_FILTER_VALUES = 20;
/** The longest option value (as the console allows) that a filter reads. */
const MAX_OPTION_VALUE_LENGTH = 60;
const PARAM_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The query parameter an option's filter uses: its name in lower-case words joined by hyphens ("Size" -> size,
 * "Shoe size" -> shoe-size); a name that would take one of the listing's own parameters gets "-option" after it.
 */
export function optionParam(optionName: string): string {
  const words = optionName
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .match(/[a-z0-9]+/g) ?? ["option"];
  const param = words.join("-").slice(0, 40);
  return LISTING_PARAMS.has(param) ? `${param}-option` : param;
}

/** What a listing shows: every field a known value or absent. */
export interface ListingState {
  sort: ListingSort;
  price: PriceBucket | null;
  /** Whole dollars from the Min and Max fields (inclusive). */
  minDollars: number | null;
  maxDollars: number | null;
  stars: StarFilter | null;
  /** On /search: a department's slug (its products and its sub-departments'). */
  department: string | null;
  /** "Include Out of Stock": off by default, so that listings show what can be bought. */
  includeOutOfStock: boolean;
  /**
   * Option values asked for, by the option's parameter (`optionParam`): a product passes with any of a parameter's
   * values, and must pass every parameter. A parameter no listed product's option takes is dropped by the server.
   */
  options: Record<string, string[]>;
  page: number;
}

export const DEFAULT_LISTING_STATE: ListingState = {
  sort: "featured",
  price: null,
  minDollars: null,
  maxDollars: null,
  stars: null,
  department: null,
  includeOutOfStock: false,
  options: {},
  page: 1,
};

/** The option filters of a query: parameters the listing does not read, in name order, values sorted and distinct. */
function readOptionFilters(params: URLSearchParams): Record<string, string[]> {
  const names = [...new Set(params.keys())]
    .filter((name) => !LISTING_PARAMS.has(name) && PARAM_NAME.test(name) && name.length <= 44)
    .sort();
  const options: Record<string, string[]> = {};
  for (const name of names.slice(0, MAX_OPTION_FILTERS)) {
    const values = [...new Set(params.getAll(name).map((value) => value.trim()))].filter(
      (value) => value !== "" && value.length <= MAX_OPTION_VALUE_LENGTH,
    );
    if (values.length > 0) options[name] = values.sort().slice(0, MAX_OPTION_FILTER_VALUES);
  }
  return options;
}

function wholeDollars(raw: string | null): number | null {
  if (raw === null) return null;
  const text = raw.trim().replace(/^\$/, "");
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(text)) return null;
  const dollars = Math.floor(Number(text));
  return dollars <= MAX_PRICE_DOLLARS ? dollars : null;
}

/**
 * Reads a listing's query string. An unknown sort or filter value is as if absent. The page is a number from 1; a
 * page that is no number at all is the first, and a number past MAX_LISTING_PAGE is kept, so that it answers 404.
 */
export function parseListingState(params: URLSearchParams): ListingState {
  const sort = SORT_OPTIONS.find((option) => option.value === params.get("sort"))?.value ?? "featured";
  const price = PRICE_BUCKETS.find((bucket) => bucket.value === params.get("price"))?.value ?? null;
  const starsValue = Number(params.get("rating"));
  const stars = STAR_FILTERS.find((value) => value === starsValue) ?? null;
  const department = /^[a-z0-9]+(-[a-z0-9]+)*$/.test(params.get("department") ?? "")
    ? params.get("department")!.slice(0, 80)
    : null;
  const pageText = params.get("page") ?? "";
  const page = /^\d{1,9}$/.test(pageText) && Number(pageText) >= 1 ? Number(pageText) : 1;
  let minDollars = wholeDollars(params.get("min"));
  let maxDollars = wholeDollars(params.get("max"));
  // Min and Max typed the wrong way round mean the range between them.
  if (minDollars !== null && maxDollars !== null && minDollars > maxDollars)
    [minDollars, maxDollars] = [maxDollars, minDollars];
  if (minDollars === 0) minDollars = null;
  const includeOutOfStock = params.get("stock") === "all";
  return {
    sort,
    price,
    minDollars,
    maxDollars,
    stars,
    department,
    includeOutOfStock,
    options: readOptionFilters(params),
    page,
  };
}

/** Whether any filter is set (sort and page are not filters). */
export function hasFilters(state: ListingState): boolean {
  return (
    state.price !== null ||
    state.minDollars !== null ||
    state.maxDollars !== null ||
    state.stars !== null ||
    state.department !== null ||
    state.includeOutOfStock ||
    Object.keys(state.options).length > 0
  );
}

/** How many filters are on: a price (a band or a typed range), a star level, a department, out-of-stock products and
 * each chosen option value; what a phone's "Filters" disclosure names. */
export function activeFilterCount(state: ListingState): number {
  return (
    (state.price !== null || state.minDollars !== null || state.maxDollars !== null ? 1 : 0) +
    (state.stars !== null ? 1 : 0) +
    (state.department !== null ? 1 : 0) +
    (state.includeOutOfStock ? 1 : 0) +
    Object.values(state.options).reduce((sum, values) => sum + values.length, 0)
  );
}

/** The state with one option value added, or taken away when it is there. */
export function toggleOptionValue(state: ListingState, param: string, value: string): ListingState {
  const current = state.options[param] ?? [];
  const values = current.includes(value)
    ? current.filter((candidate) => candidate !== value)
    : [...current, value].sort();
  const others = Object.fromEntries(Object.entries(state.options).filter(([name]) => name !== param));
  return { ...state, options: values.length > 0 ? { ...others, [param]: values } : others };
}

/** The price range in cents the state asks for: Min/Max when typed, else the price link; [min, max) for links. */
export function priceRangeCents(state: ListingState): {
  minCents: number | null;
  maxCents: number | null;
  maxInclusive: boolean;
} {
  if (state.minDollars !== null || state.maxDollars !== null) {
    return {
      minCents: state.minDollars === null ? null : state.minDollars * 100,
      maxCents: state.maxDollars === null ? null : state.maxDollars * 100,
      maxInclusive: true,
    };
  }
  const bucket = PRICE_BUCKETS.find((candidate) => candidate.value === state.price);
  return { minCents: bucket?.minCents ?? null, maxCents: bucket?.maxCents ?? null, maxInclusive: false };
}

/**
 * The query string of a state, with only what differs from the defaults, in a fixed order (one address per state).
 * `extra` comes first (/search's q).
 */
export function listingSearch(state: ListingState, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(extra)) if (value !== "") params.set(name, value);
  if (state.sort !== "featured") params.set("sort", state.sort);
  if (state.department) params.set("department", state.department);
  if (state.price && state.minDollars === null && state.maxDollars === null) params.set("price", state.price);
  if (state.minDollars !== null) params.set("min", String(state.minDollars));
  if (state.maxDollars !== null) params.set("max", String(state.maxDollars));
  if (state.stars !== null) params.set("rating", String(state.stars));
  if (state.includeOutOfStock) params.set("stock", "all");
  for (const name of Object.keys(state.options).sort())
    for (const value of state.options[name]!) params.append(name, value);
  if (state.page > 1) params.set("page", String(state.page));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** "1-24 of 137 results". */
export function resultRange(page: number, shown: number, total: number): string {
  const first = (page - 1) * LISTING_PAGE_SIZE + 1;
  return `${first}-${first + shown - 1} of ${total} ${total === 1 ? "result" : "results"}`;
}
