import { sql } from "kysely";

/**
 * The one definition of an order that needs the operator's attention ("Needs attention": the console's orders filter
 * and the dashboard's count): marked Oversold (paid after its stock hold lapsed) until it is shipped or refunded in
 * full. Another mark on orders joins the `or` here, and both the filter and the count follow. (Payments held for
 * review need attention too; they have no order: checkout's listHeldPayments.)
 */
export const orderNeedsAttention = sql<boolean>`(orders.oversold) and orders.status not in ('shipped', 'refunded')`;

/** Orders of one mode: live (real money) or test; orders from before the mode was kept count as test. */
export function ordersInMode(livemode: boolean) {
  return livemode ? sql<boolean>`orders.livemode = true` : sql<boolean>`orders.livemode is not true`;
}
