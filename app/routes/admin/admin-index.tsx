// /admin, the sales dashboard: a period's figures in the shop's time zone, the counts that lead to work, returns,
// recovery, store credit and gift cards.

import { Link } from "react-router";
import type { Route } from "./+types/admin-index";
import { DASHBOARD_PERIODS, dashboardQuerySchema, type DashboardPeriod } from "#shared/admin-dashboard-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { PageHeader } from "#app/features/admin/console-ui";
import { FigureList, FigureSection } from "#app/features/admin/dashboard/figures";
import { CustomRangeForm, PeriodTabs } from "#app/features/admin/dashboard/period-picker";
import {
  NetSalesSection,
  ReturnsByReason,
  TodoCounts,
  TopProducts,
} from "#app/features/admin/dashboard/dashboard-sections";
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
  const tabs = (["today", "last-7-days", "last-30-days"] as const).map((key) => ({
    key,
    label: DASHBOARD_PERIODS[key],
  }));
  return (
    <main id="main" className="console-main">
      <title>Dashboard | Console</title>
      <PageHeader title="Dashboard">
        <p>
          Days in {timeZone}. {isTest ? "Test orders: the shop takes test payments." : "Live orders."}
        </p>
      </PageHeader>

      <TodoCounts counts={counts} />
      <PeriodTabs tabs={tabs} period={period} />
      <CustomRangeForm typed={typed} errors={errors} />

      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading">
          {heading} <span className="console-hint">({dates})</span>
        </h2>
        <FigureList figures={figures} />
      </section>

      <NetSalesSection days={days} />
      <ReturnsByReason rows={returnsByReason} />

      <FigureSection id="recovery-heading" title="Basket recovery" figures={recovery}>
        Reminders go only to shoppers who asked for them. A recovered order is paid within 7 days of a reminder.{" "}
        <Link to="/admin/recovery">Basket reminder settings</Link>
      </FigureSection>
      <FigureSection id="store-credit-heading" title="Store credit" figures={storeCredit}>
        Issued: given by hand and refunded to store credit. Spent: paid towards orders.{" "}
        <Link to="/admin/store-credit">Store credit</Link>
      </FigureSection>
      <FigureSection id="gift-cards-heading" title="Gift cards" figures={giftCards} testId="dashboard-gift-cards">
        A liability, not sales: sold in the period, and what open cards and cards not yet sent are owed now.{" "}
        <Link to="/admin/gift-cards">Gift cards</Link>
      </FigureSection>

      <TopProducts products={topProducts} />
    </main>
  );
}
