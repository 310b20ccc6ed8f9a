// Types and constants only: this module reaches the browser bundle, so it must not pull in zod (see basket-schemas.ts).
import type { Product } from "./catalogue";

/** A basket holds at most this many items; the next one is refused with a clear message. */
export const BASKET_ITEM_LIMIT = 100;

/** The basket as pages and the JSON API see it: items in the order added, totals computed by the server. */
export interface BasketView {
  items: { itemId: string; product: Product }[];
  count: number;
  subtotalCents: number;
  /**
   * The basket's revision when this view was read: it counts up with every change (0: no basket yet). The browser
   * compares it with the revision each of its changes was answered with, to know which ones this view shows.
   */
  revision: number;
}

export const EMPTY_BASKET: BasketView = { items: [], count: 0, subtotalCents: 0, revision: 0 };

/** The header's view of the basket: its item count, at a revision (see BasketView). */
export interface BasketCount {
  count: number;
  revision: number;
}

export type BasketAction = "add" | "remove" | "empty";

/** The query parameter that carries a basket error code back to the page after a form post without JavaScript. */
export const BASKET_ERROR_PARAM = "basket-error";
