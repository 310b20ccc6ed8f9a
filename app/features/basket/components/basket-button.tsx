// A basket change as a button: a form post without JavaScript, the basket's queue with it, and the way back to this
// page.

import type { FormEvent, ReactNode } from "react";
import { useLocation } from "react-router";
import { BASKET_ERROR_PARAM, BASKET_PRODUCT_PARAM } from "#shared/basket";
import { useBasket, type BasketChange } from "#app/features/basket/basket-context";
import { BasketError, basketErrorId } from "./basket-error";

type BasketButtonProps = (
  | { action: "add"; productId: string; variantId?: string }
  /** The line's quantity as shown, so the header's count drops by that many at once. */
  | { action: "remove"; productId: string; variantId?: string; shownQuantity: number }
) & { children: ReactNode; className?: string; isDisabled?: boolean };

/**
 * A basket button that is a real form: without JavaScript it posts and the server redirects back here; with
 * JavaScript the submit is taken over and the change shows at once (see BasketProvider). "Add to Basket" says why
 * it failed right below itself, where the shopper who pressed it is looking.
 */
export function BasketButton({ children, className, isDisabled = false, ...request }: BasketButtonProps) {
  const { change } = useBasket();
  const returnTo = useReturnPath();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    change(request as BasketChange);
  };
  const isAdd = request.action === "add";
  return (
    <form method="post" action={`/basket/${request.action}`} onSubmit={onSubmit} className="basket-button-form">
      <input type="hidden" name="productId" value={request.productId} />
      {request.variantId ? <input type="hidden" name="variantId" value={request.variantId} /> : null}
      <input type="hidden" name="returnTo" value={returnTo} />
      <button
        type="submit"
        disabled={isDisabled}
        className={className ? `button ${className}` : "button"}
        {...(isAdd ? { "aria-describedby": basketErrorId(request.productId) } : {})}
      >
        {children}
      </button>
      {isAdd ? <BasketError productId={request.productId} /> : null}
    </form>
  );
}

/** This page's address without a previous basket error, so a successful post comes back clean. */
export function useReturnPath(): string {
  const { pathname, search } = useLocation();
  const params = new URLSearchParams(search);
  params.delete(BASKET_ERROR_PARAM);
  params.delete(BASKET_PRODUCT_PARAM);
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}
