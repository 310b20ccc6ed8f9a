import { VARIANT_PARAM, type ProductDetails } from "../../../shared/catalogue";
import { decimalAmount } from "../../../shared/money";
import { availabilityOf } from "../../../shared/stock";

const SCHEMA_AVAILABILITY = {
  "in-stock": "https://schema.org/InStock",
  low: "https://schema.org/InStock",
  "out-of-stock": "https://schema.org/OutOfStock",
  "back-order": "https://schema.org/BackOrder",
} as const;

/**
 * The product as schema.org's Product with one Offer per variant, for search engines' rich results. The price is a
 * decimal string, as schema.org asks ("1094.98"); availability is the variant's own.
 */
export function productStructuredData(product: ProductDetails, pageUrl: string, imageUrl: string, description: string) {
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
    })),
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
