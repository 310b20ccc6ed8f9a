/** A product as the server hands it to pages: prices in integer cents, never a float. */
export interface Product {
  id: string;
  title: string;
  priceCents: number;
  /** The unrounded average of its visible reviews, else the catalogue's own rating (whole stars). */
  rating: number;
  /** srcSet: the picture's other widths ("url 200w, url 400w"), for pictures an operator uploaded. */
  image: { src: string; width: number; height: number; srcSet?: string };
}

/** A product as the catalogue holds it today, with the address of its page: /products/{slug}. */
export interface CatalogueProduct extends Product {
  slug: string;
  /** Visible reviews behind `rating`; 0: the catalogue's rating, shown without a count. */
  ratingCount: number;
}

/** A product with what only its own page shows. */
export interface ProductDetails extends CatalogueProduct {
  /** Plain paragraphs, separated by blank lines. */
  description: string;
}

/** A listing page: one page of products, how many passed the filters in all, and counts by department id. */
export interface ListingResults {
  products: CatalogueProduct[];
  total: number;
  page: number;
  pageCount: number;
  /** Products among the results in each department (top-level on /search, sub-departments on a department page). */
  departmentCounts: Record<string, number>;
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
