// The console's order list itself: its count sentence, one row per order (badges for payment and fulfilment, the
// reasons under "Needs attention"), and the newest/older pages by keyset.

import { Link } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";
import { listHref } from "./list-href";
import type { OrderFilter } from "./order-filters";

/** An order's row, as the loader formats it. */
export interface OrderRow {
  number: string;
  paidAt: string;
  payment: { key: string; label: string };
  fulfilment: { key: string; label: string };
  total: string;
  refunded: string;
  email: string;
  isTest: boolean;
  reasons: string;
}

/** The count sentence and the table (none when nothing matches). */
export function OrdersTable({ orders, filter }: { orders: OrderRow[]; filter: OrderFilter }) {
  const { isNeedsAttention, query } = filter;
  return (
    <>
      <p className="console-count" aria-live="polite">
        {orders.length === 0
          ? isNeedsAttention
            ? "No order needs attention."
            : "No orders match."
          : `${isNeedsAttention ? "Orders that need attention, newest" : "Newest"} paid first${query ? `, matching “${query}”` : ""}.`}
      </p>
      {orders.length > 0 ? (
        <table className="console-table" tabIndex={0}>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Paid</th>
              <th scope="col">Payment</th>
              <th scope="col">Fulfilment</th>
              <th scope="col" className="console-number">
                Total
              </th>
              <th scope="col" className="console-number">
                Refunded
              </th>
              <th scope="col">E-mail</th>
              <th scope="col">Mode</th>
              {isNeedsAttention ? <th scope="col">Why</th> : null}
            </tr>
          </thead>
          <tbody>
            {orders.map((order) => (
              <tr key={order.number}>
                <td>
                  <Link to={`/admin/orders/${order.number}`}>{order.number}</Link>
                </td>
                <td>{order.paidAt}</td>
                <td>
                  <StatusBadge status={order.payment.key} label={order.payment.label} />
                </td>
                <td>
                  <StatusBadge status={order.fulfilment.key} label={order.fulfilment.label} />
                </td>
                <td className="console-number">{order.total}</td>
                <td className="console-number">{order.refunded}</td>
                <td>{order.email}</td>
                <td>{order.isTest ? <span className="console-test-badge">Test</span> : "Live"}</td>
                {isNeedsAttention ? <td>{order.reasons}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** "Newest" back to the first page, "Older orders" past the last row shown. */
export function OrderPages({
  filter,
  isFirstPage,
  next,
}: {
  filter: OrderFilter;
  isFirstPage: boolean;
  next: string | null | undefined;
}) {
  const here = filter;
  return (
    <nav className="console-pages" aria-label="Pages">
      {isFirstPage ? null : <Link to={listHref(here)}>Newest</Link>}
      {next ? <Link to={listHref({ ...here, after: next })}>Older orders</Link> : null}
    </nav>
  );
}
