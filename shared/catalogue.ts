import type { VariantStock } from "./stock";

/** A product as the server hands it to pages: prices in integer cents, never a float. */
export interface Product {
  id: string;
  title: string;
  priceCents: number;
  rating: number;
  /** srcSet: the picture's other widths ("url 200w, url 400w"), for pictures an operator uploaded. */
  image: { src: string; width: number; height: number; srcSet?: string };
}

/** A product as the catalogue holds it today, with the address of its page: /products/{slug}. */
export interface CatalogueProduct extends Product {
  slug: string;
  /** Every variant is out of stock (cards say "Out of stock"); absent otherwise. */
  isOutOfStock?: boolean;
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
}

/** The most options, values per option and variants a product may have. */
export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 100;
export const MAX_VARIANTS = 250;

/** "Size: M, Colour: Black" (empty for a product without options). */
export function describeOptionValues(names: readonly string[], values: readonly string[]): string {
  return values.map((value, index) => (names[index] ? `${names[index]}: ${value}` : value)).join(", ");
}

/** Search results: one page of products and how many matched in all. */
export interface SearchResults {
  query: string;
  products: CatalogueProduct[];
  total: number;
  page: number;
  pageCount: number;
}

/** Results shown per search page. */
export const SEARCH_PAGE_SIZE = 20;
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
