import { data, Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/orders";
import { adminOrderListSchema, heldPaymentRefundSchema, NO_LONGER_HELD } from "#shared/admin-order-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import {
  FULFILMENT_STATUS_LABELS,
  ORDER_LIST_FILTERS,
  PAYMENT_STATUS_LABELS,
  type OrderListFilter,
} from "#shared/orders";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { ErrorSummary } from "#app/components/form/error-summary";
import { CONSOLE_SUMMARY_TITLE } from "#app/features/admin/console-field";
import { readFormOrRefuse } from "#app/form-request";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { mayUse } from "#shared/console-access";

/** Payments held for review shown at once under "Needs attention" (they are few: each is a mistake to put right). */
const HELD_PAYMENTS_SHOWN = 50;

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, "routes/admin/orders");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const params = adminOrderListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const isNeedsAttention = params.show === "attention";
  const livemode = params.mode === undefined ? undefined : params.mode === "live";
  const [{ orders, next }, held] = await Promise.all([
    services.adminOrders.listOrders({
      status: isNeedsAttention ? undefined : params.status,
      needsAttention: isNeedsAttention,
      livemode,
      search: params.q,
      paidFrom: params.from,
      paidTo: params.to,
      after: params.after,
    }),
    isNeedsAttention && !params.after
      ? services.checkout.listHeldPayments(livemode ?? null, HELD_PAYMENTS_SHOWN)
      : null,
  ]);
  return {
    heldPayments: (held?.payments ?? []).map((payment) => ({
      id: payment.paymentIntentId,
      amount: formatCents(payment.paidAmountCents),
      heldAt: formatConsoleTime(payment.heldAt, timeZone),
      email: payment.contactEmail ?? "–",
      reason: payment.reason ?? "",
      isTest: payment.isTest,
    })),
    heldCount: held?.count ?? 0,
    // The buttons drawn for this role (the routes ask again).
    mayRefund: mayUse(access, "routes/admin/orders", "refund-held-payment"),
    mayExport: mayUse(access, "routes/admin/orders-export"),
    isNeedsAttention,
    status: isNeedsAttention ? null : (params.status ?? null),
    mode: params.mode ?? null,
    query: params.q,
    from: params.from ?? "",
    to: params.to ?? "",
    isFirstPage: !params.after,
    next,
    orders: orders.map((order) => ({
      number: order.number,
      paidAt: formatConsoleTime(order.paidAt, timeZone),
      payment: { key: order.paymentStatus, label: PAYMENT_STATUS_LABELS[order.paymentStatus] },
      fulfilment: { key: order.fulfilmentStatus, label: FULFILMENT_STATUS_LABELS[order.fulfilmentStatus] },
      total: formatCents(order.amountCents),
      refunded: order.refundedCents > 0 ? formatCents(order.refundedCents) : "",
      email: order.contactEmail ?? "–",
      isTest: order.isTest,
      // Why it needs attention (server/orders/needs-attention.ts).
      reasons: [order.isOversold ? "Oversold" : null, order.isPromotionOverLimit ? "Promotion over its limit" : null]
        .filter(Boolean)
        .join(", "),
    })),
  };
}

type ActionAnswer = {
  errors: Record<string, string> | undefined;
  done: string | null;
  confirm?: { question: string; button: string; payment: string };
};

/** "Needs attention"'s Refund of a held payment: the first sending asks, naming the amount; the second refunds. */
export async function action({ context, request }: Route.ActionArgs) {
  // Nobody who may not open the page gets their form read; the button pressed decides the rest.
  requireConsole(context, "routes/admin/orders");
  const fields = await readFormOrRefuse(request);
  const { services, actor } = requireConsole(context, "routes/admin/orders", fields.intent ?? null);
  const parsed = heldPaymentRefundSchema.safeParse(fields);
  if (!parsed.success)
    return data<ActionAnswer>(
      { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), done: null },
      { status: 400 },
    );
  const { payment: paymentIntentId, confirmed } = parsed.data;
  try {
    if (confirmed !== "yes") {
      const held = await services.checkout.findHeldPayment(paymentIntentId);
      if (!held) throw new AppError("NOT_FOUND", NO_LONGER_HELD);
      const amount = formatCents(held.paidAmountCents);
      return {
        errors: undefined,
        done: null,
        confirm: {
          question: `Refund ${amount} to the card it was paid with?`,
          button: `Refund ${amount}`,
          payment: paymentIntentId,
        },
      } satisfies ActionAnswer;
    }
    const refund = await services.heldPayments.refund(actor, paymentIntentId);
    const done = refund.isPending
      ? "The refund is pending at the processor."
      : `Refunded ${formatCents(refund.amountCents)}. The payment no longer needs attention.`;
    return { errors: undefined, done } satisfies ActionAnswer;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data<ActionAnswer>(
      { errors: { form: error.message }, done: null },
      { status: error.code === "NOT_FOUND" ? 409 : error.status },
    );
  }
}

/** The list's address for a filter (the export's too, at /admin/orders/export). */
function listHref({
  status,
  isNeedsAttention,
  mode,
  query,
  from,
  to,
  after,
  path = "/admin/orders",
}: {
  status: string | null;
  isNeedsAttention?: boolean;
  mode: string | null;
  query: string;
  from?: string;
  to?: string;
  after?: string;
  path?: string;
}) {
  const params = new URLSearchParams();
  if (isNeedsAttention) params.set("show", "attention");
  else if (status) params.set("status", status);
  if (mode) params.set("mode", mode);
  if (query) params.set("q", query);
  if (from) params.set("from", from);
  if (to) params.set("to", to);
  if (after) params.set("after", after);
  const search = params.toString();
  return `${path}${search ? `?${search}` : ""}`;
}

export default function AdminOrders({ loaderData, actionData }: Route.ComponentProps) {
  const { orders, status, mode, query, from, to, next, isFirstPage, isNeedsAttention, heldPayments, heldCount } =
    loaderData;
  const { mayRefund, mayExport } = loaderData;
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const here = { status, isNeedsAttention, mode, query, from, to };
  if (actionData?.confirm) {
    const { confirm } = actionData;
    return (
      <main id="main" className="console-main">
        <title>Confirm | Orders | Console</title>
        <p className="console-breadcrumb">
          <Link to="/admin/orders">Orders</Link> /{" "}
          <Link to={listHref({ ...here, isNeedsAttention: true })}>Needs attention</Link>
        </p>
        <section className="console-confirm" aria-labelledby="confirm-title">
          <h1 id="confirm-title">{confirm.question}</h1>
          <p>The payment has no order. The money goes back to the shopper at once and cannot be taken back.</p>
          <Form method="post" className="console-actions">
            <input type="hidden" name="intent" value="refund-held-payment" />
            <input type="hidden" name="payment" value={confirm.payment} />
            <input type="hidden" name="confirmed" value="yes" />
            <button type="submit" className="console-button console-button--danger" disabled={isBusy}>
              {confirm.button}
            </button>
            <Link to={listHref({ ...here, isNeedsAttention: true })} className="console-button">
              Keep the money, go back
            </Link>
          </Form>
        </section>
      </main>
    );
  }
  return (
    <main id="main" className="console-main">
      <title>Orders | Console</title>
      <PageHeader
        title="Orders"
        action={
          // A download of what the filter shows, every page of it: the browser saves the file.
          mayExport ? (
            <a href={listHref({ ...here, path: "/admin/orders/export" })} className="console-button" download>
              Export CSV
            </a>
          ) : null
        }
      />
      <p className="console-notice" role="status">
        {actionData?.done ?? ""}
      </p>
      <ErrorSummary errors={actionData?.errors} fieldIds={{}} title={CONSOLE_SUMMARY_TITLE} />
      <Form method="get" className="console-search" role="search">
        <label htmlFor="order-search">Order number or e-mail</label>
        <input id="order-search" name="q" type="search" defaultValue={query} maxLength={254} key={query} />
        <label htmlFor="order-from">Paid from</label>
        <input id="order-from" name="from" type="date" defaultValue={from} key={`from-${from}`} />
        <label htmlFor="order-to">Paid to</label>
        <input id="order-to" name="to" type="date" defaultValue={to} key={`to-${to}`} />
        {status ? <input type="hidden" name="status" value={status} /> : null}
        {isNeedsAttention ? <input type="hidden" name="show" value="attention" /> : null}
        {mode ? <input type="hidden" name="mode" value={mode} /> : null}
        <button type="submit" className="console-button">
          Search
        </button>
      </Form>
      <ul className="console-tabs console-tabs--wrap" aria-label="Order status">
        <li>
          <Link
            to={listHref({ status: null, mode, query, from, to })}
            aria-current={status === null && !isNeedsAttention ? "page" : undefined}
          >
            All
          </Link>
        </li>
        <li>
          <Link
            to={listHref({ status: null, isNeedsAttention: true, mode, query, from, to })}
            aria-current={isNeedsAttention ? "page" : undefined}
          >
            Needs attention
          </Link>
        </li>
        {(Object.keys(ORDER_LIST_FILTERS) as OrderListFilter[]).map((key) => (
          <li key={key}>
            <Link
              to={listHref({ status: key, mode, query, from, to })}
              aria-current={status === key ? "page" : undefined}
            >
              {ORDER_LIST_FILTERS[key].label}
            </Link>
          </li>
        ))}
      </ul>
      {mode ? (
        <p className="console-count">
          {mode === "test" ? "Test orders only." : "Live orders only."}{" "}
          <Link to={listHref({ ...here, mode: null })}>Show every mode</Link>
        </p>
      ) : null}
      {isNeedsAttention && isFirstPage ? (
        <section aria-labelledby="held-heading">
          <h2 id="held-heading">Payments held for review</h2>
          <p className="console-hint">Paid, but not for the basket recorded, so no order was made: refund each.</p>
          {heldPayments.length === 0 ? (
            <p className="console-count">No payment is held.</p>
          ) : (
            <table className="console-table" tabIndex={0} aria-labelledby="held-heading">
              <thead>
                <tr>
                  <th scope="col">Held</th>
                  <th scope="col" className="console-number">
                    Amount
                  </th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Why</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {heldPayments.map((payment) => (
                  <tr key={payment.id}>
                    <td>{payment.heldAt}</td>
                    <td className="console-number">{payment.amount}</td>
                    <td>{payment.email}</td>
                    <td>{payment.reason}</td>
                    <td>{payment.isTest ? <span className="console-test-badge">Test</span> : "Live"}</td>
                    <td>
                      {mayRefund ? (
                        <Form method="post">
                          <input type="hidden" name="intent" value="refund-held-payment" />
                          <input type="hidden" name="payment" value={payment.id} />
                          <button
                            type="submit"
                            className="console-button"
                            disabled={isBusy}
                            aria-label={`Refund ${payment.amount} held ${payment.heldAt}`}
                          >
                            Refund
                          </button>
                        </Form>
                      ) : (
                        "–"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {heldCount > heldPayments.length ? (
            <p className="console-count">{`The newest ${heldPayments.length} of ${heldCount}.`}</p>
          ) : null}
          <h2>Orders</h2>
        </section>
      ) : null}
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
      <nav className="console-pages" aria-label="Pages">
        {isFirstPage ? null : <Link to={listHref(here)}>Newest</Link>}
        {next ? <Link to={listHref({ ...here, after: next })}>Older orders</Link> : null}
      </nav>
    </main>
  );
}
