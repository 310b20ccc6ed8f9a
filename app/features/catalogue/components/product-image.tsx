// A product's picture at the size it is drawn, loaded first, eagerly or lazily by where it is on the page.

import type { Product } from "#shared/catalogue";

/**
 * A product's picture at the size it is drawn, so the page keeps its place before it loads. "first": the page's
 * largest picture, fetched first; "eager": in the first screenful; "lazy": further down.
 */
export function ProductImage({
  product,
  className,
  load,
  sizes = "200px",
  alt = product.title,
}: {
  product: Product;
  className: string;
  load: "first" | "eager" | "lazy";
  /** How wide the picture is drawn, for choosing from its srcset (an uploaded picture's widths). */
  sizes?: string;
  /** What the picture shows, when it is more than the product (a variant's own picture names its values). */
  alt?: string;
}) {
  const loading =
    load === "lazy" ? { loading: "lazy" as const } : load === "first" ? { fetchPriority: "high" as const } : {};
  return (
    <img
      className={className}
      src={product.image.src}
      {...(product.image.srcSet ? { srcSet: product.image.srcSet, sizes } : {})}
      width={product.image.width}
      height={product.image.height}
      alt={alt}
      {...loading}
      decoding="async"
    />
  );
}
