// The sentences a page shows after a basket form post failed without JavaScript: the redirect carries a code, never
// text.

import { BASKET_ITEM_LIMIT, BASKET_LINE_LIMIT } from "./basket";
import { NO_SUCH_COMBINATION_MESSAGE } from "./catalogue";
import type { ErrorCode } from "./errors";
import { OUT_OF_STOCK_MESSAGE } from "./stock";

export const BASKET_FULL_MESSAGE = `Your basket is full: it holds at most ${BASKET_ITEM_LIMIT} items.`;
export const BASKET_LINE_FULL_MESSAGE = `You can have at most ${BASKET_LINE_LIMIT} of one product in your basket.`;

/**
 * What a page says after a basket form post failed without JavaScript. The redirect carries only the error
 * code; the sentence comes from here, so no caller-supplied text is ever shown.
 */
export const basketErrorMessages: Partial<Record<ErrorCode, string>> = {
  BASKET_FULL: BASKET_FULL_MESSAGE,
  BASKET_LINE_FULL: BASKET_LINE_FULL_MESSAGE,
  UNKNOWN_PRODUCT: "That product is not in our catalogue, so it could not be added to your basket.",
  NO_SUCH_COMBINATION: NO_SUCH_COMBINATION_MESSAGE,
  OUT_OF_STOCK: OUT_OF_STOCK_MESSAGE,
  BAD_REQUEST: "Your basket could not be changed: the request was not understood. Please try again.",
  FORBIDDEN: "Your basket could not be changed: the request came from another site.",
  PAYLOAD_TOO_LARGE: "Your basket could not be changed: the request was too large.",
  TOO_MANY_NEW_SESSIONS:
    "Too many new baskets have been started from your network in the last hour. Please try again later.",
};

export const GENERIC_BASKET_ERROR = "Your basket could not be changed. Please try again.";

/**
 * The sentence for an error code read from a redirect's query string. Only the table's own entries count: any other
 * string, an inherited name such as `__proto__` or `toString` included, gets the general sentence.
 */
export function basketErrorMessage(code: string): string {
  return (
    (Object.hasOwn(basketErrorMessages, code) ? basketErrorMessages[code as ErrorCode] : undefined) ??
    GENERIC_BASKET_ERROR
  );
}
