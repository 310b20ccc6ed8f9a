import type { ReactNode } from "react";
import { productAnchorId } from "../../../../shared/basket";
import type { Product } from "../../../../shared/catalogue";
import { Price } from "../../../components/ui/price";
import { Stars } from "../../../components/ui/stars";

/** One product on a shelf: title, price, stars, picture, and an action (the page's "Add to Basket"). */
export function ProductCard({ product, isPriority, action }: { product: Product; isPriority?: boolean; action: ReactNode }) {
  const headingId = `product-${product.id}-title`;
  return (
    <article id={productAnchorId(product.id)} className="product-card" aria-labelledby={headingId}>
      <div className="product-card__info">
        <h2 id={headingId} className="product-card__title">
          {product.title}
        </h2>
        <p className="product-card__price">
          <Price cents={product.priceCents} />
        </p>
        <p className="product-card__rating">
          <Stars rating={product.rating} />
        </p>
      </div>
      <img
        className="product-card__image"
        src={product.image.src}
        width={product.image.width}
        height={product.image.height}
        alt={product.title}
        {...(isPriority ? {} : { loading: "lazy" as const })}
        decoding="async"
      />
      <div className="product-card__action">{action}</div>
    </article>
  );
}
