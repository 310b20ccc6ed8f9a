import type { FormEvent, ReactNode } from "react";
import { useLocation } from "react-router";
import { BASKET_ERROR_PARAM } from "../../../../shared/basket";
import { useBasket, type TrackedChange } from "../basket-context";

interface BasketButtonProps {
  action: TrackedChange["action"];
  productId: string;
  children: ReactNode;
  className?: string;
}

/**
 * A basket button that is a real form: without JavaScript it posts and the server redirects back here; with
 * JavaScript the submit is taken over and the change shows at once (see BasketProvider).
 */
export function BasketButton({ action, productId, children, className }: BasketButtonProps) {
  const { change } = useBasket();
  const location = useLocation();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    change(action, productId);
  };
  return (
    <form method="post" action={`/basket/${action}`} onSubmit={onSubmit} className="basket-button-form">
      <input type="hidden" name="productId" value={productId} />
      <input type="hidden" name="returnTo" value={returnPath(location.pathname, location.search)} />
      <button type="submit" className={className ? `button ${className}` : "button"}>
        {children}
      </button>
    </form>
  );
}

/** This page's address without a previous basket error, so a successful post comes back clean. */
function returnPath(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete(BASKET_ERROR_PARAM);
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}
