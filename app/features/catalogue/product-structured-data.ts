// A product page's schema.org structured data (product, offers, rating, latest reviews) as a safe script element.

import { VARIANT_PARAM, type ProductDetails } from "#shared/catalogue";
import type { ReviewSummary, ReviewView } from "#shared/reviews";
import { decimalAmount } from "#shared/money";
import { availabilityOf } from "#shared/stock";

const SCHEMA_AVAILABILITY = {
  "in-stock": "https://schema.org/InStock",
  low: "https://schema.org/InStock",
  "out-of-stock": "https://schema.org/OutOfStock",
  "back-order": "https://schema.org/BackOrder",
} as const;

/** Reviews given in the structured data: the latest few, as search engines show. */
const STRUCTURED_REVIEWS = 5;

/**
 * The product as schema.org's Product with one Offer per variant, for search engines' rich results. The price is a
 * decimal string, as schema.org asks ("1094.98"); availability is the variant's own. With visible reviews:
 * aggregateRating (their unrounded average and count) and the latest reviews; the catalogue's own rating is no
 * customer's and is left out. Each offer's seller is the shop, by the name its settings give.
 */
export function productStructuredData(
  product: ProductDetails,
  pageUrl: string,
  imageUrl: string,
  description: string,
  reviews?: { summary: ReviewSummary; latest: readonly ReviewView[] },
  shopName?: string,
) {
  const rated = reviews && reviews.summary.count > 0 && reviews.summary.average !== null ? reviews : null;
  return {
    "@context": "https://schema.org",
    "@type": "Product",
    "@id": pageUrl,
    name: product.title,
    description,
    image: imageUrl,
    sku: product.id,
    url: pageUrl,
    offers: product.variants.map((variant) => ({
      "@type": "Offer",
      url: product.options.length > 0 ? `${pageUrl}?${VARIANT_PARAM}=${encodeURIComponent(variant.id)}` : pageUrl,
      sku: variant.sku ?? variant.id,
      price: decimalAmount(variant.priceCents),
      priceCurrency: "USD",
      availability: SCHEMA_AVAILABILITY[availabilityOf(variant.stock).kind],
      itemCondition: "https://schema.org/NewCondition",
      ...(shopName ? { seller: { "@type": "Organization", name: shopName } } : {}),
    })),
    ...(rated
      ? {
          aggregateRating: {
            "@type": "AggregateRating",
            ratingValue: rated.summary.average,
            reviewCount: rated.summary.count,
            bestRating: 5,
            worstRating: 1,
          },
          review: rated.latest.slice(0, STRUCTURED_REVIEWS).map((review) => ({
            "@type": "Review",
            author: { "@type": "Person", name: review.reviewerName },
            datePublished: review.createdAt.slice(0, 10),
            name: review.headline,
            reviewBody: review.body,
            reviewRating: { "@type": "Rating", ratingValue: review.rating, bestRating: 5, worstRating: 1 },
          })),
        }
      : {}),
  };
}

/**
 * JSON to put inside a <script> element. JSON.stringify leaves "<" alone, so a title holding "</script>" would end
 * the element and let what follows run as markup; as \u003c it stays inside the JSON string. The line and paragraph
 * separators are escaped for old parsers that treat them as line ends.
 */
export function jsonForScriptElement(value: unknown): string {
  // One pass over the text (it is written on every product page), not one per character escaped.
  return JSON.stringify(value).replace(SCRIPT_UNSAFE, (character) => SCRIPT_ESCAPES[character]!);
}

const SCRIPT_UNSAFE = /[<>&\u2028\u2029]/g;
const SCRIPT_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};
