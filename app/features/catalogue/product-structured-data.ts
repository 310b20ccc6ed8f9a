import type { ProductDetails } from "../../../shared/catalogue";
import { decimalAmount } from "../../../shared/money";

/**
 * The product as schema.org's Product with an Offer, for search engines' rich results. The price is a decimal
 * string, as schema.org asks ("1094.98").
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
    offers: {
      "@type": "Offer",
      url: pageUrl,
      price: decimalAmount(product.priceCents),
      priceCurrency: "USD",
      availability: "https://schema.org/InStock",
      itemCondition: "https://schema.org/NewCondition",
    },
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
