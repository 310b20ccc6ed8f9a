// The review links' address: the product's page with "Write a customer review" open, by product id.

import { data, redirect } from "react-router";
import type { Route } from "./+types/write-a-review";
import { requestContext } from "#app/context";
import { productPath } from "#shared/catalogue";

/**
 * The order page's and the review request e-mail's link: the product's page with "Write a customer review" open.
 * By product id, which orders keep, so a product renamed since still leads to its page.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const id = params.productId.slice(0, 40);
  const product = /^[A-Za-z0-9_-]+$/.test(id) ? await services.catalogue.getProduct(id) : undefined;
  if (!product) throw data(null, { status: 404 });
  return redirect(`${productPath(product.slug)}?review=write#write-review`);
}
