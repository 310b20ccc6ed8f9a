// One product on a shelf: title, price, stars, picture, and "Add to Basket" or "See options".

import type { ReactNode } from "react";
import { Link } from "react-router";
import { productAnchorId } from "#shared/basket";
import { productPath, type CatalogueProduct } from "#shared/catalogue";
import { Price } from "#app/components/ui/price";
import { Stars } from "#app/components/ui/stars";
import { ProductImage } from "./product-image";

/**
 * One product on a shelf: title, price, stars, picture, and an action (the page's "Add to Basket"; for a product
 * sold in options, "See options", a link to its page). The title and the picture lead to the product's page; the
 * picture's link is left out of the tab order and the accessibility tree, so a keyboard or screen-reader user meets
 * one link per product there, not two.
 */
export function ProductCard({
  product,
  isPriority,
  action,
}: {
  product: CatalogueProduct;
  isPriority?: boolean;
  action: ReactNode;
}) {
  const headingId = `product-${product.id}-title`;
  const href = productPath(product.slug);
  return (
    <article id={productAnchorId(product.id)} className="product-card" aria-labelledby={headingId}>
      <div className="product-card__info">
        <h2 id={headingId} className="product-card__title">
          <Link to={href} className="product-card__link">
            {product.title}
          </Link>
        </h2>
        <p className="product-card__price">
          <Price cents={product.priceCents} />
        </p>
        <p className="product-card__rating">
          <Stars rating={product.rating} count={product.ratingCount} />
        </p>
      </div>
      <Link to={href} className="product-card__picture" tabIndex={-1} aria-hidden="true">
        <ProductImage product={product} className="product-card__image" load={isPriority ? "eager" : "lazy"} />
      </Link>
      {/* Every variant out of stock: there is nothing to add, and the card says so instead. A product sold in options
          is chosen on its page: a card cannot know which size or colour the shopper wants. */}
      <div className="product-card__action">
        {product.isOutOfStock ? (
          <p className="product-card__stock">Out of stock</p>
        ) : product.hasOptions ? (
          <Link to={href} className="button" aria-describedby={headingId}>
            See options
          </Link>
        ) : (
          action
        )}
      </div>
    </article>
  );
}
