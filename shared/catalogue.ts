// The catalogue's wire types (products, options, variants, their details) and the limits on options and variants.

import { canBeSold, type VariantStock } from "./stock";

/** A product as the server hands it to pages: prices in integer cents, never a float. */
export interface Product {
  id: string;
  title: string;
  priceCents: number;
  /** The unrounded average of its visible reviews, else the rating it came with; null: nobody rated it (no stars). */
  rating: number | null;
  /** srcSet: the picture's other widths ("url 200w, url 400w"), for pictures an operator uploaded. */
  image: { src: string; width: number; height: number; srcSet?: string };
}

/** A product as the catalogue holds it today, with the address of its page: /products/{slug}. */
export interface CatalogueProduct extends Product {
  slug: string;
  /** Visible reviews (else an import's ratings) behind `rating`; 0: the specification's rating, shown without a count. */
  ratingCount: number;
  /** Every variant is out of stock (cards say "Out of stock"); absent otherwise. */
  isOutOfStock?: boolean;
  /** Sold in options (sizes, colours): a card links to its page ("See options") instead of adding; absent otherwise. */
  hasOptions?: boolean;
}

/** A product's option: a name and its values, in the order shoppers see them ("Size": S, M, L). */
export interface ProductOption {
  name: string;
  values: string[];
}

/** One combination of option values that is sold, as the product page shows it. */
export interface ProductVariant {
  id: string;
  /** One value per option, in the options' order; [] for a product without options. */
  optionValues: string[];
  sku: string | null;
  priceCents: number;
  /** Shown struck through as "List Price: $x"; null: none. */
  compareAtCents: number | null;
  weightGrams: number;
  chargeTax: boolean;
  /** The variant's own picture, when it has one. */
  image?: { src: string; width: number; height: number; srcSet?: string };
  stock: VariantStock;
}

/** A product with what only its own page shows. */
export interface ProductDetails extends CatalogueProduct {
  /** Plain paragraphs, separated by blank lines. */
  description: string;
  /** 0 to 3. */
  options: ProductOption[];
  /** At least one; a product without options has exactly one. */
  variants: ProductVariant[];
  /** A gift card: its page asks for the recipient (and, for "any_amount", the amount); absent for other products. */
  giftCard?: "denominations" | "any_amount";
}

/** The most options, values per option and variants a product may have. */
export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 100;
export const MAX_VARIANTS = 250;

/** "Size: M, Colour: Black" (empty for a product without options). */
export function describeOptionValues(names: readonly string[], values: readonly string[]): string {
  return values.map((value, index) => (names[index] ? `${names[index]}: ${value}` : value)).join(", ");
}

/** A listing page: one page of products, how many passed the filters in all, and counts by department id. */
export interface ListingResults {
  products: CatalogueProduct[];
  total: number;
  page: number;
  pageCount: number;
  /** Products among the results in each department (top-level on /search, sub-departments on a department page). */
  departmentCounts: Record<string, number>;
  /** The option values of the results (Size, Colour), each with how many products offer it. */
  optionFacets: OptionFacet[];
  /** The option filters applied: the query's, less any that names no option of the listed products. */
  appliedOptions: Record<string, string[]>;
}

/** An option's filter on a listing page: its name, its query parameter, its values with their product counts. */
export interface OptionFacet {
  name: string;
  param: string;
  values: { value: string; count: number }[];
}

/** Search results: a listing, and what was searched for. */
export interface SearchResults extends ListingResults {
  query: string;
}
/** The longest query the shop searches for: longer input is cut to this, never refused. */
export const SEARCH_QUERY_MAX_LENGTH = 200;

export function productPath(slug: string): string {
  return `/products/${slug}`;
}

/** A description's paragraphs: the text between blank lines, trimmed, empty ones left out. */
export function descriptionParagraphs(description: string): string[] {
  return description
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0);
}

/** The query parameter of a product page's address that names the chosen variant (/products/{slug}?variant={id}). */
export const VARIANT_PARAM = "variant";

/** The radio group's name for a product's option at `index` (0-based): the no-JavaScript "Choose" form sends these. */
export function optionParam(index: number): string {
  return `option${index + 1}`;
}

/**
 * The variant a product page shows: the one its address names (?variant=), else the one whose values the "Choose"
 * button sent (?option1=…&option2=…), else the first that can be bought, else the first.
 */
export function chooseVariant(
  product: Pick<ProductDetails, "options" | "variants">,
  params: URLSearchParams,
): ProductVariant {
  const first = product.variants[0];
  if (!first) throw new Error("catalogue: a product without variants");
  const named = product.variants.find((variant) => variant.id === params.get(VARIANT_PARAM));
  if (named) return named;
  const chosen = resolveChosenVariant(product, optionValuesOf(product, params));
  if (chosen.kind === "variant") return chosen.variant;
  return product.variants.find((variant) => canBeSold(variant.stock)) ?? first;
}

/** The option values a form sent (option1, option2, …), one per option of the product; undefined where none was. */
export function optionValuesOf(
  product: Pick<ProductDetails, "options">,
  params: URLSearchParams | Readonly<Record<string, string | undefined>>,
): (string | undefined)[] {
  return product.options.map((_, index) => {
    const name = optionParam(index);
    const value = params instanceof URLSearchParams ? params.get(name) : params[name];
    return value ?? undefined;
  });
}

export const NO_SUCH_COMBINATION_MESSAGE = "This combination is not available.";

/** What a shopper is told when an option was left unchosen: "Choose a Size." */
export function chooseOptionMessage(optionName: string): string {
  return `Choose a ${optionName}.`;
}

/** The variant chosen option values name, or what is wrong with the choice: an option left out, or no such variant. */
export type ChosenVariant =
  | { kind: "variant"; variant: ProductVariant }
  /** position: the option's, from 1. */
  | { kind: "missing"; option: string; position: number }
  | { kind: "unavailable" };

export function resolveChosenVariant(
  product: Pick<ProductDetails, "options" | "variants">,
  values: readonly (string | undefined)[],
): ChosenVariant {
  if (product.options.length === 0) return { kind: "variant", variant: product.variants[0]! };
  const missing = product.options.findIndex((_, index) => !values[index]);
  if (missing !== -1) return { kind: "missing", option: product.options[missing]!.name, position: missing + 1 };
  const variant = findVariantByValues(product.variants, values.slice(0, product.options.length) as string[]);
  return variant ? { kind: "variant", variant } : { kind: "unavailable" };
}

/** The variant with exactly these option values, if that combination exists. */
export function findVariantByValues(
  variants: readonly ProductVariant[],
  values: readonly string[],
): ProductVariant | undefined {
  return variants.find(
    (variant) =>
      variant.optionValues.length === values.length &&
      variant.optionValues.every((value, index) => value === values[index]),
  );
}
