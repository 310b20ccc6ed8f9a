// Types and constants only: this module reaches the browser bundle, so it must not pull in zod (see basket-schemas.ts).

import type { Product } from "./catalogue";
import type { VariantStock } from "./stock";

/** A basket holds at most this many items (the sum of its quantities); the next one is refused with a clear message. */
export const BASKET_ITEM_LIMIT = 100;
/** One line holds at most this many of its product: the quantity control offers 1 to this. */
export const BASKET_LINE_LIMIT = 10;

/** The variant a basket line holds: what pricing needs of it (unit price, weight, whether tax is charged). */
export interface BasketVariant {
  id: string;
  /** Its option values with their option's name ("Size", "M"); [] for a product without options. */
  options: { name: string; value: string }[];
  sku: string | null;
  /** The variant's own price of one, in cents (the line's product.priceCents is the same). */
  priceCents: number;
  weightGrams: number;
  chargeTax: boolean;
}

/** One line of the basket: a variant of a product, how many of it, and what they cost together at its price now. */
export interface BasketLineView {
  /** The line's id, stable while the variant stays in the basket. */
  itemId: string;
  /** The product, priced at the line's variant. */
  product: Product;
  variant: BasketVariant;
  /** The variant's stock now (available counts everyone's live reservations). */
  stock: VariantStock;
  /** "Out of stock: remove it to continue" or "Only N left in stock": said beside the line. */
  stockMessage?: string;
  /** The line cannot be paid for while it is there: its variant is out of stock. */
  isOutOfStock?: boolean;
  quantity: number;
  lineCents: number;
  /** The price the product had when the line was added, when the catalogue's price has changed since; else absent. */
  addedPriceCents?: number;
  /**
   * A gift card line: who it is for, from whom, the message and the "Send on" day (null when its details are missing,
   * which cannot be paid for); absent on other lines.
   */
  giftCard?: {
    recipientEmail: string;
    senderName: string;
    message: string;
    sendOn: string | null;
    amountCents: number | null;
  } | null;
}

/** The basket as pages and the JSON API see it: one line per product in the order first added, totals computed by the server. */
export interface BasketView {
  items: BasketLineView[];
  /** Items, not lines: the sum of the quantities. */
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

export type BasketAction = "add" | "remove" | "quantity" | "empty";

/** The query parameter that carries a basket error code back to the page after a form post without JavaScript. */
export const BASKET_ERROR_PARAM = "basket-error";
/** Beside it, the product whose form failed, so the page shows the sentence next to that product's button. */
export const BASKET_PRODUCT_PARAM = "basket-product";
/** With "Choose a {option}.": which of the product's options (1, 2, 3) was left unchosen; the page names it. */
export const BASKET_OPTION_PARAM = "basket-option";

/** On /checkout after a basket reminder's link: "restored", "expired" or "gone" (server/recovery). */
export const BASKET_LINK_PARAM = "basket-link";

/** The id of a product's card on a page, the fragment a form post without JavaScript comes back to. */
export function productAnchorId(productId: string): string {
  return `product-${productId}`;
}
