// One line of a basket or an order: picture, title, price, stars, quantity and an optional action.

import type { ReactNode } from "react";
import type { Product } from "#shared/catalogue";
import { formatCents } from "#shared/money";
import { Price } from "#app/components/ui/price";
import { Stars } from "#app/components/ui/stars";

/**
 * One line in a list of the basket (or of an order): picture, title, price, stars, and an optional action. With a
 * quantity (and no controls of its own), it reads "2 × $11.96" and the line's total.
 */
export function BasketLine({
  product,
  quantity,
  lineCents,
  action,
  options = "",
  stockMessage,
}: {
  product: Product;
  quantity?: number;
  /** What the line comes to, as the server priced it (the basket's lineCents, an order's stored line amount). */
  lineCents?: number;
  action?: ReactNode;
  /** "Size: M, Colour: Black" for a variant of a product with options. */
  options?: string;
  /** "Out of stock: remove it to continue", "Only N left in stock". */
  stockMessage?: string;
}) {
  return (
    <div className="basket-line">
      <img
        className="basket-line__image"
        src={product.image.src}
        width={180}
        height={180}
        alt=""
        loading="lazy"
        decoding="async"
      />
      <div className="basket-line__info">
        <p className="basket-line__title">{product.title}</p>
        {options ? <p className="basket-line__options">{options}</p> : null}
        {stockMessage ? (
          <p className="basket-line__stock" role="status">
            {stockMessage}
          </p>
        ) : null}
        <p className="basket-line__price">
          {quantity === undefined ? (
            <Price cents={product.priceCents} />
          ) : (
            <>
              <span data-testid="line-quantity">
                {quantity} × <Price cents={product.priceCents} />
              </span>
              {quantity > 1 && lineCents !== undefined ? (
                <strong className="basket-line__total">{formatCents(lineCents)}</strong>
              ) : null}
            </>
          )}
        </p>
        <p className="basket-line__rating">
          <Stars rating={product.rating} />
        </p>
        {action}
      </div>
    </div>
  );
}
