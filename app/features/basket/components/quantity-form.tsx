// A basket line's quantity: a form with "Update" without JavaScript, an immediate change with it.

import { useId, type FormEvent } from "react";
import { BASKET_LINE_LIMIT } from "#shared/basket";
import { useBasket } from "#app/features/basket/basket-context";
import { useEarlyInput } from "#app/components/form/early-input";
import { useIsEnhanced } from "#app/components/ui/use-is-enhanced";
import { basketErrorId } from "./basket-error";
import { useReturnPath } from "./basket-button";

const QUANTITIES = Array.from({ length: BASKET_LINE_LIMIT }, (_, index) => index + 1);

/**
 * A line's "Quantity" select. Without JavaScript it is a form with an "Update" button; with JavaScript a choice
 * takes effect at once (the button is hidden) and goes through the basket's queue like every other change.
 */
export function QuantityForm({
  productId,
  variantId,
  title,
  quantity,
}: {
  productId: string;
  variantId?: string;
  title: string;
  quantity: number;
}) {
  const { change } = useBasket();
  const returnTo = useReturnPath();
  const selectId = useId();
  const isEnhanced = useIsEnhanced();
  const choose = (chosen: number) => {
    if (chosen !== quantity)
      change({
        action: "quantity",
        productId,
        ...(variantId ? { variantId } : {}),
        quantity: chosen,
        shownQuantity: quantity,
      });
  };
  // A choice made while the page was starting (the select shown, its script not yet running) is made now.
  const earlyKey = `quantity-${variantId ?? productId}`;
  useEarlyInput(earlyKey, (early) => {
    const chosen = early.get("quantity");
    if (chosen !== undefined) choose(Number(chosen));
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    choose(Number(new FormData(event.currentTarget).get("quantity")));
  };
  return (
    <form method="post" action="/basket/quantity" onSubmit={onSubmit} className="quantity-form" data-early={earlyKey}>
      <input type="hidden" name="productId" value={productId} />
      {variantId ? <input type="hidden" name="variantId" value={variantId} /> : null}
      <input type="hidden" name="returnTo" value={returnTo} />
      <label htmlFor={selectId} className="quantity-form__label">
        Quantity
      </label>
      <select
        id={selectId}
        name="quantity"
        className="quantity-form__select"
        aria-label={`Quantity of ${title}`}
        aria-describedby={basketErrorId(productId)}
        value={quantity}
        onChange={(event) => choose(Number(event.currentTarget.value))}
      >
        {QUANTITIES.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
      <button type="submit" className="button button--small quantity-form__update" hidden={isEnhanced}>
        Update
      </button>
    </form>
  );
}
