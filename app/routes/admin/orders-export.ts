import { adminOrderListSchema } from "../../../shared/admin-order-schemas";
import { requireOperator } from "./require-operator";
import type { Route } from "./+types/orders-export";

/** "Export CSV" on the orders page: the orders its filter shows (status, paid between two days, search), one row per line, streamed. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireOperator(context);
  const params = adminOrderListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return services.csvExports.orders(request, { status: params.status, search: params.q, paidFrom: params.from, paidTo: params.to });
}
