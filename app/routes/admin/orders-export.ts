// The orders CSV download: the orders the list's filter shows, one row per line, streamed.

import { adminOrderListSchema } from "#shared/admin-order-schemas";
import { requireConsole } from "./require-operator";
import type { Route } from "./+types/orders-export";

/**
 * "Export CSV" on the orders page: the orders its filter shows (a status or "Needs attention", a mode, paid between two
 * days, a search), one row per line, streamed.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/orders-export");
  const params = adminOrderListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const needsAttention = params.show === "attention";
  return services.csvExports.orders(request, {
    status: needsAttention ? undefined : params.status,
    needsAttention,
    livemode: params.mode === undefined ? undefined : params.mode === "live",
    search: params.q,
    paidFrom: params.from,
    paidTo: params.to,
  });
}
