// The one definition of an order that needs the operator's attention, shared by the console's filter and the
// dashboard's count.

import { sql } from "kysely";
import { SENT_FULFILMENT_STATUSES } from "#shared/orders";

/**
 * The one definition of an order that needs the operator's attention ("Needs attention": the console's orders filter
 * and the dashboard's count): marked Oversold (paid after its stock hold lapsed) until it is shipped or refunded in
 * full, or marked "Promotion over its limit" (paid after its code's hold lapsed, when the code's last use had gone).
 * Another mark on orders joins the `or` here, and both the filter and the count follow. (Payments held for
 * review need attention too; they have no order: checkout's listHeldPayments.)
 */
export const orderNeedsAttention = sql<boolean>`(orders.oversold or orders.promotion_over_limit) and orders.fulfilment_status not in (${sql.join(SENT_FULFILMENT_STATUSES.map((status) => sql.lit(status)))}) and orders.payment_status <> 'refunded'`;

/** Orders of one mode: live (real money) or test; orders from before the mode was kept count as test. */
export function ordersInMode(livemode: boolean) {
  return livemode ? sql<boolean>`orders.livemode = true` : sql<boolean>`orders.livemode is not true`;
}
