// The products CSV download, in Shopify's current layout, streamed.

import { requestContext } from "#app/context";
import { requireConsole } from "./require-operator";
import type { Route } from "./+types/products-export";

/**
 * "Export CSV" on the products page: every product in Shopify's current product CSV layout, streamed (and compressed
 * as a stream) as it is read. Pictures are named by their address at the shop's public origin.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/products-export");
  return services.csvExports.products(request, context.get(requestContext).publicOrigin);
}
