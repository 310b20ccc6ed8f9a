// The basket's JSON-or-form routes (add, change, remove, restore a reminded basket), each a form post answered with a
// redirect or JSON answered with the basket, through one schema and service call.

import { Hono, type Context } from "hono";
import {
  BASKET_ERROR_PARAM,
  BASKET_LINK_PARAM,
  BASKET_OPTION_PARAM,
  BASKET_PRODUCT_PARAM,
  productAnchorId,
} from "#shared/basket";
import { AppError } from "#shared/errors";
import { basketRequestSchemas } from "#shared/basket-schemas";
import { VARIANT_PARAM } from "#shared/catalogue";
import type { AppEnv } from "./app-env";
import { answerFormOrJson, type FormReturn } from "./form-or-json";
import { readBody } from "./read-body";
import { jsonResponse } from "./response-bytes";

/**
 * The basket's endpoints. Each takes a form post (no JavaScript: answered with a redirect back to the page) or
 * JSON (the enhanced page: answered with the basket). Both run the same validation and the same service call.
 *
 *   GET  /basket          the basket (JSON)
 *   POST /basket/add       { productId, variantId? }             one more of a variant (a new line, or +1 on its line);
 *                                                                409 "This item is out of stock." when it is
 *                          { productId, option1, option2?, … }   the variant with these option values (the product
 *                                                                page's form); 422 "Choose a {option}." for one left
 *                                                                out, "This combination is not available." for none
 *   POST /basket/quantity  { productId, variantId?, quantity }   set the quantity of its line, 1 to 10 (at most what is available)
 *   POST /basket/remove    { productId, variantId? }             take its whole line out ({ removed: false } if absent)
 *   (no variantId: the only variant of a product without options; a product in options is refused, "Choose a …")
 *   POST /basket/empty     {}                        clear it
 *   GET  /basket/restore?token=   a basket reminder's "Return to your basket": its lines join this browser's basket
 *                                 (never signing anyone in), then 303 to /checkout, which says how it went
 *
 * A form post about one product comes back to that product on its page (#product-{id}), and a refusal names it, so
 * the page shows the sentence next to that product's form.
 */
export const basketRoutes = new Hono<AppEnv>()
  .get("/basket/restore", async (c) => {
    const token = (c.req.query("token") ?? "").slice(0, 100);
    const outcome = await c.get("services").basketReminders.restore(token, () => c.get("shopper").ensureBasketOwner());
    c.header("Cache-Control", "private, no-store");
    return c.redirect(`/checkout?${BASKET_LINK_PARAM}=${outcome}`, 303);
  })
  .get("/basket", async (c) => {
    const { basket } = c.get("services");
    return jsonResponse(c, { basket: await basket.getBasket(c.get("shopper").basketOwner) }, 200, {
      "Cache-Control": "no-store",
    });
  })
  .post("/basket/add", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async (formReturn) => {
      const { productId, variantId, returnTo, ...options } = await readBody(c.req.raw, basketRequestSchemas.add);
      returnToProduct(formReturn, productId);
      const { basket: baskets } = c.get("services");
      const optionValues = [options.option1, options.option2, options.option3];
      const isChosenByOptions = optionValues.some((value) => value !== undefined);
      try {
        const chosenId = isChosenByOptions ? await baskets.findVariantByOptions(productId, optionValues) : variantId;
        // The owner on demand: an unknown product is refused before a guest session is started for it.
        const basket = await baskets.addItem(ensureOwner(c), productId, chosenId);
        // The product page comes back showing the variant the shopper chose and got.
        const back = isChosenByOptions ? withVariant(returnTo, chosenId) : returnTo;
        return { json: { basket }, status: 201, returnTo: back };
      } catch (error) {
        // "Choose a {option}.": the page names the option from its own catalogue; the address says only which one.
        const position = error instanceof AppError ? error.details?.optionPosition : undefined;
        if (typeof position === "number") formReturn.errorParams![BASKET_OPTION_PARAM] = String(position);
        throw error;
      }
    }),
  )
  .post("/basket/quantity", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async (formReturn) => {
      const { productId, variantId, quantity, returnTo } = await readBody(c.req.raw, basketRequestSchemas.quantity);
      returnToProduct(formReturn, productId);
      const basket = await c.get("services").basket.setQuantity(ensureOwner(c), productId, quantity, variantId);
      return { json: { basket }, status: 200, returnTo };
    }),
  )
  .post("/basket/remove", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async (formReturn) => {
      const { productId, variantId, returnTo } = await readBody(c.req.raw, basketRequestSchemas.remove);
      returnToProduct(formReturn, productId);
      const owner = await c.get("shopper").ensureBasketOwner();
      const { basket, removed } = await c.get("services").basket.removeItem(owner, productId, variantId);
      return { json: { basket, removed }, status: 200, returnTo };
    }),
  )
  .post("/basket/empty", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async () => {
      const { returnTo } = await readBody(c.req.raw, basketRequestSchemas.empty);
      const owner = await c.get("shopper").ensureBasketOwner();
      const basket = await c.get("services").basket.emptyBasket(owner);
      return { json: { basket }, status: 200, returnTo };
    }),
  );

/** The shopper's basket owner, a guest session started only when the change is made. */
function ensureOwner(c: Context<AppEnv>) {
  return () => c.get("shopper").ensureBasketOwner();
}

function returnToProduct(formReturn: FormReturn, productId: string): void {
  formReturn.fragment = productAnchorId(productId);
  formReturn.errorParams = { [BASKET_PRODUCT_PARAM]: productId };
}

/** The page a form post returns to, naming the variant chosen (?variant=), as a choice with JavaScript does. */
function withVariant(returnTo: string | undefined, variantId: string | undefined): string | undefined {
  if (returnTo === undefined || variantId === undefined) return returnTo;
  const url = new URL(returnTo, "http://local");
  url.searchParams.set(VARIANT_PARAM, variantId);
  return url.pathname + url.search;
}
