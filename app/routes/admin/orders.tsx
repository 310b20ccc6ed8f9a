import { Form, Link } from "react-router";
import type { Route } from "./+types/orders";
import { adminOrderListSchema } from "../../../shared/admin-order-schemas";
import { formatCents } from "../../../shared/money";
import { ORDER_STATUS_LABELS, type OrderStatus } from "../../../shared/orders";
import { PageHeader, StatusBadge } from "../../features/admin/console-ui";
import { formatConsoleTime, requireOperator } from "./require-operator";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireOperator(context);
  const params = adminOrderListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const [{ orders, next }, oversold] = await Promise.all([
    services.adminOrders.listOrders({ status: params.status, search: params.q, paidFrom: params.from, paidTo: params.to, after: params.after }),
    services.adminOrders.listOversold(),
  ]);
  return {
    needsAttention: oversold.map((order) => ({
      number: order.number,
      total: formatCents(order.amountCents),
      paidAt: formatConsoleTime(order.paidAt),
      reasons: [order.oversold ? "Oversold" : null, order.promotionOverLimit ? "Promotion over its limit" : null].filter(Boolean).join(", "),
    })),
    status: params.status ?? null,
    query: params.q,
    from: params.from ?? "",
    to: params.to ?? "",
    isFirstPage: !params.after,
    next,
    orders: orders.map((order) => ({
      number: order.number,
      paidAt: formatConsoleTime(order.paidAt),
      status: ORDER_STATUS_LABELS[order.status],
      statusKey: order.status,
      total: formatCents(order.amountCents),
      refunded: order.refundedCents > 0 ? formatCents(order.refundedCents) : "",
      email: order.contactEmail ?? "–",
      isTest: order.isTest,
    })),
  };
}

/** The list's address for a filter (the export's too, at /admin/orders/export). */
function listHref(status: string | null, query: string, after?: string, range: { from: string; to: string } = { from: "", to: "" }, path = "/admin/orders") {
  const params = new URLSearchParams();
  if (status) params.set("status", status);
  if (query) params.set("q", query);
  if (range.from) params.set("from", range.from);
  if (range.to) params.set("to", range.to);
  if (after) params.set("after", after);
  const search = params.toString();
  return `${path}${search ? `?${search}` : ""}`;
}

export default function AdminOrders({ loaderData }: Route.ComponentProps) {
  const { orders, status, query, next, isFirstPage, needsAttention, from, to } = loaderData;
  const range = { from, to };
  return (
    <main id="main" className="console-main">
      <title>Orders | Console</title>
      <PageHeader
        title="Orders"
        action={
          // A download of what the filter shows, every page of it: the browser saves the file.
          <a href={listHref(status, query, undefined, range, "/admin/orders/export")} className="console-button" download>
            Export CSV
          </a>
        }
      />
      {needsAttention.length > 0 ? (
        <section aria-labelledby="attention-heading" className="console-attention">
          <h2 id="attention-heading">Needs attention</h2>
          <ul>
            {needsAttention.map((order) => (
              <li key={order.number}>
                <Link to={`/admin/orders/${order.number}`}>{order.number}</Link> ({order.total}, paid {order.paidAt}): {order.reasons}. Refund offered on the
                order&apos;s page.
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <Form method="get" className="console-search" role="search">
        <label htmlFor="order-search">Order number or e-mail</label>
        <input id="order-search" name="q" type="search" defaultValue={query} maxLength={254} key={query} />
        <label htmlFor="order-from">Paid from</label>
        <input id="order-from" name="from" type="date" defaultValue={from} key={`from-${from}`} />
        <label htmlFor="order-to">Paid to</label>
        <input id="order-to" name="to" type="date" defaultValue={to} key={`to-${to}`} />
        {status ? <input type="hidden" name="status" value={status} /> : null}
        <button type="submit" className="console-button">
          Search
        </button>
      </Form>
      <ul className="console-tabs console-tabs--wrap" aria-label="Order status">
        <li>
          <Link to={listHref(null, query, undefined, range)} aria-current={status === null ? "page" : undefined}>
            All
          </Link>
        </li>
        {(Object.keys(ORDER_STATUS_LABELS) as OrderStatus[]).map((key) => (
          <li key={key}>
            <Link to={listHref(key, query, undefined, range)} aria-current={status === key ? "page" : undefined}>
              {ORDER_STATUS_LABELS[key]}
            </Link>
          </li>
        ))}
      </ul>
      <p className="console-count" aria-live="polite">
        {orders.length === 0 ? "No orders match." : `Newest paid first${query ? `, matching “${query}”` : ""}.`}
      </p>
      {orders.length > 0 ? (
        <table className="console-table" tabIndex={0}>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Paid</th>
              <th scope="col">Status</th>
              <th scope="col" className="console-number">
                Total
              </th>
              <th scope="col" className="console-number">
                Refunded
              </th>
              <th scope="col">E-mail</th>
              <th scope="col">Mode</th>
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
                  <StatusBadge status={order.statusKey} label={order.status} />
                </td>
                <td className="console-number">{order.total}</td>
                <td className="console-number">{order.refunded}</td>
                <td>{order.email}</td>
                <td>{order.isTest ? <span className="console-test-badge">Test</span> : "Live"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <nav className="console-pages" aria-label="Pages">
        {isFirstPage ? null : <Link to={listHref(status, query, undefined, range)}>Newest</Link>}
        {next ? <Link to={listHref(status, query, next, range)}>Older orders</Link> : null}
      </nav>
    </main>
  );
}
