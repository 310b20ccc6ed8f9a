import type { ReactNode } from "react";
import type { Product } from "../../../../shared/catalogue";
import { Price } from "../../../components/ui/price";
import { Stars } from "../../../components/ui/stars";

/** One item in a list of the basket (or of an order): picture, title, price, stars, and an optional action. */
export function BasketLine({ product, action }: { product: Product; action?: ReactNode }) {
  return (
    <div className="basket-line">
      <img className="basket-line__image" src={product.image.src} width={180} height={180} alt="" loading="lazy" decoding="async" />
      <div className="basket-line__info">
        <p className="basket-line__title">{product.title}</p>
        <p className="basket-line__price">
          <Price cents={product.priceCents} />
        </p>
        <p className="basket-line__rating">
          <Stars rating={product.rating} />
        </p>
        {action}
      </div>
    </div>
  );
}
