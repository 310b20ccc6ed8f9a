import { Form, Link } from "react-router";
import type { Route } from "./+types/admin-index";
import { DASHBOARD_PERIODS, dashboardQuerySchema, type DashboardPeriod } from "#shared/admin-dashboard-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { PageHeader } from "#app/features/admin/console-ui";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { CONSOLE_SUMMARY_TITLE, fieldIdsOf } from "#app/features/admin/console-field";
import { NetSalesChart } from "#app/features/admin/dashboard/net-sales-chart";
import { requireConsole } from "./require-operator";
import { returnReasonLabel } from "#shared/returns";

/** "12,345": a count with thousands separators (no Intl: the same on the server and in the browser). */
function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** /admin: the sales dashboard of a period in the shop's time zone, and the counts that lead to work. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/admin-index");
  const params = new URL(request.url).searchParams;
  const parsed = dashboardQuerySchema.safeParse({
    period: params.get("period") ?? undefined,
    from: params.get("from") ?? undefined,
    to: params.get("to") ?? undefined,
  });
  // A range that cannot be shown is said by its fields; the figures are then today's.
  const period: DashboardPeriod = parsed.success ? parsed.data : { period: "today" };
  const dashboard = await services.salesDashboard.getDashboard(period);
  const { figures, counts } = dashboard;
  const [byReason, waitingReturns] = await Promise.all([
    services.returns.returnsByReason({ from: dashboard.from, to: dashboard.to, timeZone: dashboard.timeZone }),
    services.returns.countReturnsNeedingAttention(),
  ]);
  const mode = dashboard.isTest ? "test" : "live";
  return {
    period: period.period,
    errors: parsed.success ? undefined : fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }),
    typed: {
      from: params.get("from")?.slice(0, 10) ?? dashboard.from,
      to: params.get("to")?.slice(0, 10) ?? dashboard.to,
    },
    heading: period.period === "custom" ? `${dashboard.from} to ${dashboard.to}` : DASHBOARD_PERIODS[period.period],
    dates: dashboard.from === dashboard.to ? dashboard.from : `${dashboard.from} to ${dashboard.to}`,
    timeZone: dashboard.timeZone,
    isTest: dashboard.isTest,
    figures: [
      { label: "Gross sales", value: formatCents(figures.grossCents) },
      { label: "Discounts", value: formatCents(-figures.discountCents) },
      { label: "Refunds", value: formatCents(-figures.refundCents) },
      { label: "Net sales", value: formatCents(figures.netCents) },
      { label: "Shipping", value: formatCents(figures.shippingCents) },
      { label: "Tax", value: formatCents(figures.taxCents) },
      { label: "Orders", value: formatCount(figures.orders) },
      { label: "Average order value", value: formatCents(figures.averageOrderValueCents) },
      { label: "Items sold", value: formatCount(figures.itemsSold) },
    ],
    recovery: [
      { label: "Baskets reminded", value: formatCount(dashboard.recovery.reminded) },
      { label: "Returned from the e-mail", value: formatCount(dashboard.recovery.returned) },
      { label: "Recovered orders", value: formatCount(dashboard.recovery.recoveredOrders) },
      { label: "Recovered sales", value: formatCents(dashboard.recovery.recoveredCents) },
    ],
    storeCredit: [
      { label: "Store credit issued", value: formatCents(dashboard.storeCredit.issuedCents) },
      { label: "Store credit spent", value: formatCents(dashboard.storeCredit.spentCents) },
    ],
    giftCards: [
      { label: "Gift cards sold", value: formatCents(dashboard.giftCards.soldCents) },
      { label: "Gift card balances owed", value: formatCents(dashboard.giftCards.outstandingCents) },
    ],
    days: dashboard.days.map((day) => ({
      date: day.date,
      label: day.date.slice(5),
      netCents: day.netCents,
      net: formatCents(day.netCents),
    })),
    topProducts: dashboard.topProducts.map((product) => ({
      id: product.productId,
      title: product.title,
      quantity: product.quantity,
      net: formatCents(product.netCents),
    })),
    counts: [
      { label: "To ship", count: formatCount(counts.toShip), href: `/admin/orders?status=paid&mode=${mode}` },
      {
        label: "Needs attention",
        count: formatCount(counts.needsAttention),
        href: `/admin/orders?show=attention&mode=${mode}`,
      },
      { label: "Low stock", count: formatCount(counts.lowStock), href: "/admin/products?stock=low" },
      {
        label: "Returns waiting over 3 days",
        count: formatCount(waitingReturns.returns + waitingReturns.withdrawals),
        href: `/admin/orders?show=attention&mode=${mode}`,
      },
    ],
    returnsByReason: byReason.map((row) => ({
      reason: returnReasonLabel(row.reason),
      returns: formatCount(row.returns),
      units: formatCount(row.units),
      refunded: formatCents(row.refundCents),
    })),
  };
}

export default function AdminDashboard({ loaderData }: Route.ComponentProps) {
  const {
    period,
    errors,
    typed,
    heading,
    dates,
    timeZone,
    isTest,
    figures,
    recovery,
    days,
    topProducts,
    counts,
    returnsByReason,
    storeCredit,
    giftCards,
  } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Dashboard | Console</title>
      <PageHeader title="Dashboard">
        <p>
          Days in {timeZone}. {isTest ? "Test orders: the shop takes test payments." : "Live orders."}
        </p>
      </PageHeader>

      <ul className="console-counts" aria-label="To do">
        {counts.map((count) => (
          <li key={count.label}>
            <Link to={count.href}>
              <span className="console-counts__label">{count.label}</span>{" "}
              <span className="console-counts__value">{count.count}</span>
            </Link>
          </li>
        ))}
      </ul>

      <ul className="console-tabs" aria-label="Period">
        {(["today", "last-7-days", "last-30-days"] as const).map((key) => (
          <li key={key}>
            <Link
              to={key === "today" ? "/admin" : `/admin?period=${key}`}
              aria-current={period === key ? "page" : undefined}
            >
              {DASHBOARD_PERIODS[key]}
            </Link>
          </li>
        ))}
      </ul>
      <ErrorSummary errors={errors} fieldIds={fieldIdsOf(["from", "to"])} title={CONSOLE_SUMMARY_TITLE} />
      <Form
        method="get"
        action="/admin"
        className="console-form console-form--inline"
        aria-label="Custom range"
        noValidate
      >
        <input type="hidden" name="period" value="custom" />
        <div className="console-field">
          <label htmlFor="field-from">From</label>
          <input
            id="field-from"
            name="from"
            type="date"
            defaultValue={typed.from}
            key={`from-${typed.from}`}
            {...invalidFieldProps("field-from", errors?.from)}
          />
          <FieldError fieldId="field-from" message={errors?.from} />
        </div>
        <div className="console-field">
          <label htmlFor="field-to">To</label>
          <input
            id="field-to"
            name="to"
            type="date"
            defaultValue={typed.to}
            key={`to-${typed.to}`}
            {...invalidFieldProps("field-to", errors?.to)}
          />
          <FieldError fieldId="field-to" message={errors?.to} />
        </div>
        <button type="submit" className="console-button">
          Show
        </button>
      </Form>

      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading">
          {heading} <span className="console-hint">({dates})</span>
        </h2>
        <dl className="console-figures">
          {figures.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Net sales per day</h2>
        <NetSalesChart days={days} />
        <table className="visually-hidden">
          <caption>Net sales per day</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Net sales</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>{day.net}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="returns-heading">
        <h2 id="returns-heading">Returns by reason</h2>
        <table className="console-table" tabIndex={0} aria-labelledby="returns-heading">
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col" className="console-number">
                Returns
              </th>
              <th scope="col" className="console-number">
                Items
              </th>
              <th scope="col" className="console-number">
                Refunded
              </th>
            </tr>
          </thead>
          <tbody>
            {returnsByReason.map((row) => (
              <tr key={row.reason} data-testid="returns-by-reason">
                <th scope="row">{row.reason}</th>
                <td className="console-number">{row.returns}</td>
                <td className="console-number">{row.units}</td>
                <td className="console-number">{row.refunded}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="recovery-heading">
        <h2 id="recovery-heading">Basket recovery</h2>
        <dl className="console-figures">
          {recovery.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
            </div>
          ))}
        </dl>
        <p className="console-hint">
          Reminders go only to shoppers who asked for them. A recovered order is paid within 7 days of a reminder.{" "}
          <Link to="/admin/recovery">Basket reminder settings</Link>
        </p>
      </section>

      <section aria-labelledby="store-credit-heading">
        <h2 id="store-credit-heading">Store credit</h2>
        <dl className="console-figures">
          {storeCredit.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
            </div>
          ))}
        </dl>
        <p className="console-hint">
          Issued: given by hand and refunded to store credit. Spent: paid towards orders.{" "}
          <Link to="/admin/store-credit">Store credit</Link>
        </p>
      </section>

      <section aria-labelledby="gift-cards-heading">
        <h2 id="gift-cards-heading">Gift cards</h2>
        <dl className="console-figures" data-testid="dashboard-gift-cards">
          {giftCards.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
            </div>
          ))}
        </dl>
        <p className="console-hint">
          A liability, not sales: sold in the period, and what open cards and cards not yet sent are owed now.{" "}
          <Link to="/admin/gift-cards">Gift cards</Link>
        </p>
      </section>

      <section aria-labelledby="top-heading">
        <h2 id="top-heading">Top products</h2>
        {topProducts.length === 0 ? (
          <p className="console-count">Nothing sold in this period.</p>
        ) : (
          <table className="console-table" tabIndex={0} aria-labelledby="top-heading">
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col" className="console-number">
                  Sold
                </th>
                <th scope="col" className="console-number">
                  Net sales
                </th>
              </tr>
            </thead>
            <tbody>
              {topProducts.map((product) => (
                <tr key={product.id}>
                  <td>{product.title}</td>
                  <td className="console-number">{product.quantity}</td>
                  <td className="console-number">{product.net}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
