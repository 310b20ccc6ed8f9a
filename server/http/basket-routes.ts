import { Hono } from "hono";
import { BASKET_ERROR_PARAM } from "../../shared/basket";
import { basketRequestSchemas } from "../../shared/basket-schemas";
import type { AppEnv } from "./app";
import { answerFormOrJson } from "./form-or-json";
import { readBody } from "./read-body";

/**
 * The basket's endpoints. Each takes a form post (no JavaScript: answered with a redirect back to the page) or
 * JSON (the enhanced page: answered with the basket). Both run the same validation and the same service call.
 *
 *   GET  /basket          the basket (JSON)
 *   POST /basket/add      { productId }   append a catalogue product
 *   POST /basket/remove   { productId }   take out the first item with that id ({ removed: false } if absent)
 *   POST /basket/empty    {}              clear it
 */
export const basketRoutes = new Hono<AppEnv>()
  .get("/basket", async (c) => {
    const { basket } = c.get("services");
    return c.json({ basket: await basket.getBasket(c.get("shopper").basketOwner) }, 200, { "Cache-Control": "no-store" });
  })
  .post("/basket/add", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async () => {
      const { productId, returnTo } = await readBody(c.req.raw, basketRequestSchemas.add);
      // An unknown product is refused before a guest session is started for it.
      await c.get("services").basket.assertInCatalogue(productId);
      const owner = await c.get("shopper").ensureBasketOwner();
      const basket = await c.get("services").basket.addItem(owner, productId);
      return { json: { basket }, status: 201, returnTo };
    }),
  )
  .post("/basket/remove", (c) =>
    answerFormOrJson(c, BASKET_ERROR_PARAM, async () => {
      const { productId, returnTo } = await readBody(c.req.raw, basketRequestSchemas.remove);
      const owner = await c.get("shopper").ensureBasketOwner();
      const { basket, removed } = await c.get("services").basket.removeItem(owner, productId);
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
