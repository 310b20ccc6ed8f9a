import type { ProductDetails } from "../../../shared/catalogue";
import type { ReviewSummary, ReviewView } from "../../../shared/reviews";
import { decimalAmount } from "../../../shared/money";

/** Reviews given in the structured data: the latest few, as search engines show. */
const STRUCTURED_REVIEWS = 5;

/**
 * The product as schema.org's Product with an Offer, for search engines' rich results. The price is a decimal
 * string, as schema.org asks ("1094.98"). With visible reviews: aggregateRating (their unrounded average and count)
 * and the latest reviews; the catalogue's own rating is no customer's and is left out.
 */
export function productStructuredData(
  product: ProductDetails,
  pageUrl: string,
  imageUrl: string,
  description: string,
  reviews?: { summary: ReviewSummary; latest: readonly ReviewView[] },
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
    offers: {
      "@type": "Offer",
      url: pageUrl,
      price: decimalAmount(product.priceCents),
      priceCurrency: "USD",
      availability: "https://schema.org/InStock",
      itemCondition: "https://schema.org/NewCondition",
    },
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
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}
