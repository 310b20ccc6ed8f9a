// /admin/orders: every order by keyset pages, its filters and search, and "Needs attention" with payments held for
// review.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/orders";
import { adminOrderListSchema, heldPaymentRefundSchema, NO_LONGER_HELD } from "#shared/admin-order-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { FULFILMENT_STATUS_LABELS, PAYMENT_STATUS_LABELS } from "#shared/orders";
import { PageHeader } from "#app/features/admin/console-ui";
import { ErrorSummary } from "#app/components/form/error-summary";
import { CONSOLE_SUMMARY_TITLE } from "#app/features/admin/console-field";
import { readFormOrRefuse } from "#app/form-request";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { mayUse } from "#shared/console-access";
import { RETURN_STATUS_LABELS } from "#shared/returns";
import { listHref } from "#app/features/admin/orders/list-href";
import { HeldPaymentConfirmation } from "#app/features/admin/orders/held-payment-confirmation";
import { OrderModeNote, OrderSearch, OrderStatusTabs } from "#app/features/admin/orders/order-filters";
import { NeedsAttention } from "#app/features/admin/orders/needs-attention";
import { OrderPages, OrdersTable } from "#app/features/admin/orders/orders-table";

/** Payments held for review shown at once under "Needs attention" (they are few: each is a mistake to put right). */
const HELD_PAYMENTS_SHOWN = 50;

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, "routes/admin/orders");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const params = adminOrderListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const isNeedsAttention = params.show === "attention";
  const livemode = params.mode === undefined ? undefined : params.mode === "live";
  const [{ orders, next }, held, waitingReturns] = await Promise.all([
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
    isNeedsAttention && !params.after ? services.returns.listReturns({ needsAttention: true }) : [],
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
    // Returns and withdrawals waiting on the shop (a decision or the parcel) for more than 3 days, apart.
    waitingReturns: waitingReturns.map((row) => ({
      number: row.number,
      kind: row.kind,
      status: RETURN_STATUS_LABELS[row.status],
      requestedAt: formatConsoleTime(row.createdAt, timeZone),
      email: row.contactEmail ?? "–",
    })),
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

export default function AdminOrders({ loaderData, actionData }: Route.ComponentProps) {
  const { orders, status, mode, query, from, to, next, isFirstPage, isNeedsAttention, heldPayments, heldCount } =
    loaderData;
  const { mayRefund, mayExport } = loaderData;
  const navigation = useNavigation();
  const isBusy = navigation.state === "submitting";
  const here = { status, isNeedsAttention, mode, query, from, to };
  if (actionData?.confirm)
    return (
      <HeldPaymentConfirmation
        confirm={actionData.confirm}
        backTo={listHref({ ...here, isNeedsAttention: true })}
        isBusy={isBusy}
      />
    );
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
      <OrderSearch filter={here} />
      <OrderStatusTabs filter={here} />
      <OrderModeNote filter={here} />
      {isNeedsAttention && isFirstPage ? (
        <NeedsAttention
          heldPayments={heldPayments}
          heldCount={heldCount}
          waitingReturns={loaderData.waitingReturns}
          mayRefund={mayRefund}
          isBusy={isBusy}
        />
      ) : null}
      <OrdersTable orders={orders} filter={here} />
      <OrderPages filter={here} isFirstPage={isFirstPage} next={next} />
    </main>
  );
}
