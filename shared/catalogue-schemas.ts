// The search page's query and a product page's slug, read strictly: a page number past the last reachable one is the
// first.

import { z } from "zod";
import { SEARCH_QUERY_MAX_LENGTH } from "./catalogue";

/** The last results page anyone reaches by "Next" (10,000 products); past it a page number is taken as the first. */
const MAX_SEARCH_PAGE = 500;

/**
 * /search's query string. Nothing a shopper types is refused: q is trimmed and cut to 200 characters, and a page
 * number that is not one (or not a sensible one) is the first page. Other parameters (a campaign's utm_…) are ignored.
 */
export const searchParamsSchema = z.object({
  q: z
    .string()
    .catch("")
    .default("")
    .transform((q) => [...q.trim()].slice(0, SEARCH_QUERY_MAX_LENGTH).join("").trim()),
  page: z.coerce.number().int().min(1).max(MAX_SEARCH_PAGE).catch(1).default(1),
});

export function parseSearchParams(params: URLSearchParams): z.infer<typeof searchParamsSchema> {
  return searchParamsSchema.parse({ q: params.get("q") ?? undefined, page: params.get("page") ?? undefined });
}

/** A product page's slug as the catalogue writes them (the products table checks the same): anything else is a 404. */
export const productSlugSchema = z
  .string()
  .max(120)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/);
