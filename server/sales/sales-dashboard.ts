// The sales dashboard's figures for a period in the shop's time zone, read from the running totals the database keeps.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import type { DashboardPeriod } from "#shared/admin-dashboard-schemas";
import type { RecoveryFigures } from "#server/recovery/recovery-report";
import { TO_SHIP } from "#shared/orders";
import { addDays, dateInZone, datesFrom, startOfDate } from "#server/calendar/shop-calendar";
import { orderNeedsAttention, ordersInMode } from "#server/orders/needs-attention";
import type { GiftCardFigures } from "#server/gift-cards/gift-card-figures";

export const TOP_PRODUCTS = 5;

/** What the shop sold in a period, in cents (money) and counts. */
export interface SalesFigures {
  /** Items before discounts. */
  grossCents: number;
  discountCents: number;
  /** Refunds made in the period, whenever their order was paid. */
  refundCents: number;
  /** Gross - discounts - refunds. */
  netCents: number;
  /** As charged. */
  shippingCents: number;
  taxCents: number;
  orders: number;
  /** (Gross - discounts) ÷ orders, to the cent; 0 without orders. */
  averageOrderValueCents: number;
  itemsSold: number;
}

export interface SalesDashboard {
  /** The period's first and last dates (YYYY-MM-DD) in the shop's time zone, both included. */
  from: string;
  to: string;
  timeZone: string;
  /** The figures are the test orders' (the shop takes test payments), else the live ones'. */
  isTest: boolean;
  figures: SalesFigures;
  /** Net sales of each date of the period, in order. */
  days: { date: string; netCents: number }[];
  /** The best sellers by net sales (a refund shared across its order's lines in proportion), at most TOP_PRODUCTS. */
  topProducts: { productId: string; title: string; quantity: number; netCents: number }[];
  counts: { toShip: number; needsAttention: number; lowStock: number };
  /** Basket reminders of the period and what came of them (server/recovery). */
  recovery: RecoveryFigures;
  /** Store credit issued and spent in the period (server/balances/store-credit.ts). */
  storeCredit: { issuedCents: number; spentCents: number };
  /**
   * Gift cards sold in the period and owed now: a liability, not sales (the figures above leave gift card lines out:
   * migration 0041).
   */
  giftCards: GiftCardFigures;
}

interface DashboardDependencies {
  /** The shop's time zone as its settings say now (saved in the console, else SHOP_TIME_ZONE). */
  timeZone: () => Promise<string>;
  /** The mode the shop takes payments in: only its orders are counted. */
  livemode: boolean;
  countLowStock: () => Promise<number>;
  countHeldPayments: (livemode: boolean) => Promise<number>;
  recoveryFigures: (start: Date, end: Date) => Promise<RecoveryFigures>;
  /** Store credit issued (by hand, by refunds) and spent on orders in the period. */
  storeCreditFigures?: (start: Date, end: Date) => Promise<{ issuedCents: number; spentCents: number }>;
  /** Gift cards sold in the period and owed now (server/gift-cards/gift-card-figures.ts). */
  giftCardFigures?: (start: Date, end: Date) => Promise<GiftCardFigures>;
  now?: () => Date;
}

/**
 * The console's dashboard: sales figures of a period in the shop's time zone, summed from the running totals the
 * database keeps per UTC quarter hour (and, for products, per UTC day: migration 0023), and the counts that lead to
 * work. A month is about 3,000 rows of totals, and a row per product and day, whatever the number of orders.
 */
export function createSalesDashboard(
  db: DB,
  {
    timeZone: timeZoneNow,
    livemode,
    countLowStock,
    countHeldPayments,
    recoveryFigures,
    storeCreditFigures = async () => ({ issuedCents: 0, spentCents: 0 }),
    giftCardFigures = async () => ({ soldCents: 0, outstandingCents: 0 }),
    now = () => new Date(),
  }: DashboardDependencies,
) {
  /** The dates a period covers, in the shop's time zone. */
  function datesOf(period: DashboardPeriod, timeZone: string): { from: string; to: string } {
    if (period.period === "custom") return { from: period.from, to: period.to };
    const today = dateInZone(now(), timeZone);
    const back = { today: 0, "last-7-days": 6, "last-30-days": 29 }[period.period];
    return { from: addDays(today, -back), to: today };
  }

  async function salesByDay(dayStarts: Date[], end: Date) {
    // Each quarter hour's row goes to the day it starts in: width_bucket counts the day starts at or before it.
    const starts = `{${dayStarts.map((start) => `"${start.toISOString()}"`).join(",")}}`;
    const rows = await sql<{
      day: number;
      orders: string | number;
      items_sold: string | number;
      gross_cents: string | number;
      discount_cents: string | number;
      refund_cents: string | number;
      shipping_cents: string | number;
      tax_cents: string | number;
    }>`
      select width_bucket(starts_at, ${starts}::timestamptz[]) as day,
             sum(orders)::bigint as orders, sum(items_sold)::bigint as items_sold,
             sum(gross_cents)::bigint as gross_cents, sum(discount_cents)::bigint as discount_cents,
             sum(refund_cents)::bigint as refund_cents, sum(shipping_cents)::bigint as shipping_cents,
             sum(tax_cents)::bigint as tax_cents
      from sales_totals
      where livemode = ${livemode} and starts_at >= ${dayStarts[0]} and starts_at < ${end}
      group by 1`.execute(db);
    return rows.rows.map((row) => ({
      index: Number(row.day) - 1,
      orders: Number(row.orders),
      itemsSold: Number(row.items_sold),
      grossCents: Number(row.gross_cents),
      discountCents: Number(row.discount_cents),
      refundCents: Number(row.refund_cents),
      shippingCents: Number(row.shipping_cents),
      taxCents: Number(row.tax_cents),
    }));
  }

  /**
   * The best sellers from `start` to `end`: the UTC days wholly inside the period from the daily totals, the hours at
   * either end (a time zone's midnight is rarely UTC's) from the quarter hours.
   */
  async function topProducts(start: Date, end: Date): Promise<SalesDashboard["topProducts"]> {
    const DAY = 86_400_000;
    const firstWholeDay = Math.ceil(start.getTime() / DAY) * DAY;
    const endOfWholeDays = Math.floor(end.getTime() / DAY) * DAY;
    const hasWholeDays = firstWholeDay < endOfWholeDays;
    const daysFrom = new Date(hasWholeDays ? firstWholeDay : end.getTime());
    const daysTo = new Date(hasWholeDays ? endOfWholeDays : end.getTime());
    const utcDate = (at: Date) => at.toISOString().slice(0, 10);
    const rows = await sql<{
      product_id: string;
      title: string;
      quantity: string | number;
      net_cents: string | number;
    }>`
      select best.product_id, coalesce(products.title, best.title) as title, best.quantity, best.net_cents
      from (
        select product_id, max(title) as title, sum(quantity)::bigint as quantity,
               sum(gross_cents - discount_cents - refund_cents)::bigint as net_cents
        from (
          select product_id, title, quantity, gross_cents, discount_cents, refund_cents from product_sales_by_day
          where livemode = ${livemode} and day >= ${utcDate(daysFrom)}::date and day < ${utcDate(daysTo)}::date
          union all
          select product_id, title, quantity, gross_cents, discount_cents, refund_cents from product_sales_totals
          where livemode = ${livemode} and starts_at >= ${start} and starts_at < ${daysFrom}
          union all
          select product_id, title, quantity, gross_cents, discount_cents, refund_cents from product_sales_totals
          where livemode = ${livemode} and starts_at >= ${daysTo} and starts_at < ${end}
        ) as sold
        group by product_id
        order by net_cents desc, product_id
        limit ${TOP_PRODUCTS}
      ) as best
      left join products on products.id = best.product_id
      order by best.net_cents desc, best.product_id`.execute(db);
    return rows.rows.map((row) => ({
      productId: row.product_id,
      title: row.title,
      quantity: Number(row.quantity),
      netCents: Number(row.net_cents),
    }));
  }

  async function countOrders(condition: ReturnType<typeof sql<boolean>>): Promise<number> {
    const row = await db
      .selectFrom("orders")
      .select(sql<number>`count(*)::int`.as("count"))
      .where(condition)
      .where(ordersInMode(livemode))
      .executeTakeFirstOrThrow();
    return row.count;
  }

  return {
    livemode,

    async getDashboard(period: DashboardPeriod): Promise<SalesDashboard> {
      const timeZone = await timeZoneNow();
      const { from, to } = datesOf(period, timeZone);
      const dates = datesFrom(from, to);
      const dayStarts = dates.map((date) => startOfDate(date, timeZone));
      const end = startOfDate(addDays(to, 1), timeZone);
      const [byDay, best, toShip, attentionOrders, heldPayments, lowStock, recovery, storeCredit, giftCards] =
        await Promise.all([
          salesByDay(dayStarts, end),
          topProducts(dayStarts[0] ?? end, end),
          countOrders(sql<boolean>`orders.fulfilment_status = ${sql.lit(TO_SHIP)}`),
          countOrders(orderNeedsAttention),
          countHeldPayments(livemode),
          countLowStock(),
          recoveryFigures(dayStarts[0] ?? end, end),
          storeCreditFigures(dayStarts[0] ?? end, end),
          giftCardFigures(dayStarts[0] ?? end, end),
        ]);
      const figures = {
        grossCents: 0,
        discountCents: 0,
        refundCents: 0,
        shippingCents: 0,
        taxCents: 0,
        orders: 0,
        itemsSold: 0,
      };
      const netByDay = dates.map(() => 0);
      for (const day of byDay) {
        for (const key of Object.keys(figures) as (keyof typeof figures)[]) figures[key] += day[key];
        netByDay[day.index] = day.grossCents - day.discountCents - day.refundCents;
      }
      const afterDiscounts = figures.grossCents - figures.discountCents;
      return {
        from,
        to,
        timeZone,
        isTest: !livemode,
        figures: {
          ...figures,
          netCents: afterDiscounts - figures.refundCents,
          averageOrderValueCents: figures.orders === 0 ? 0 : Math.round(afterDiscounts / figures.orders),
        },
        days: dates.map((date, index) => ({ date, netCents: netByDay[index] ?? 0 })),
        topProducts: best,
        counts: { toShip, needsAttention: attentionOrders + heldPayments, lowStock },
        storeCredit,
        giftCards,
        recovery,
      };
    },
  };
}

export type SalesDashboardService = ReturnType<typeof createSalesDashboard>;
