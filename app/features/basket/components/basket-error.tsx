// Why the last change of a product failed, shown next to its form in a live region.

import { useBasketError } from "#app/features/basket/basket-context";

export function basketErrorId(productId: string): string {
  return `basket-error-${productId}`;
}

/**
 * Why the last change of this product failed, next to its form. The live region is always in the page (empty until
 * needed), so screen readers announce the sentence when it appears.
 */
export function BasketError({ productId }: { productId: string }) {
  const error = useBasketError(productId);
  return (
    <p
      id={basketErrorId(productId)}
      role="alert"
      className={error ? "basket-error" : "basket-error basket-error--empty"}
    >
      {error}
    </p>
  );
}
