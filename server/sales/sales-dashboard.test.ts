import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import type { DB } from "#server/db/client";
import { describeEachDatabase } from "#server/testing/test-database";
import { createSalesDashboard, TOP_PRODUCTS } from "./sales-dashboard";
import { addDays, datesFrom, startOfDate } from "#server/calendar/shop-calendar";

const PRODUCTS = ["12321341", "p-lamp", "p-desk", "p-chair", "p-mug", "p-rug", "p-pen"];
const WINDOW_START = Date.parse("2026-03-03T00:00:00Z");
const WINDOW_END = Date.parse("2026-03-13T00:00:00Z");

/** A small seeded generator: the same orders on every run and both databases. */
function randomFrom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

interface TestLine {
  productId: string;
  quantity: number;
  amountCents: number;
  discountCents: number;
}
interface TestOrder {
  id: string;
  livemode: boolean | null;
  paidAt: Date;
  lines: TestLine[];
  itemsCents: number;
  discountCents: number;
}
interface TestRefund {
  orderId: string;
  amountCents: number;
  at: Date;
}

/** The instants where a day starts in New York and in Kolkata in the window, and a millisecond either side of them. */
function boundaryInstants(): number[] {
  const instants: number[] = [];
  for (const zone of ["America/New_York", "Asia/Kolkata"]) {
    for (const date of datesFrom("2026-03-03", "2026-03-12")) {
      const start = startOfDate(date, zone).getTime();
      instants.push(start - 1, start, start + 1);
    }
  }
  return instants.filter((at) => at >= WINDOW_START && at < WINDOW_END);
}

/**
 * Random orders (1 to 3 lines, discounts, shipping, tax; test, live and from before modes were kept) paid across
 * ten days, many of them a millisecond either side of a midnight in New York or Kolkata, and refunds of them, whole
 * and partial, made later, some in another day than their order's. Written straight into orders and order_refunds:
 * the totals follow whatever writes them.
 */
async function writeRandomSales(db: DB, seed: number, count: number) {
  const random = randomFrom(seed);
  const boundaries = boundaryInstants();
  const orders: TestOrder[] = [];
  const refunds: TestRefund[] = [];
  for (let index = 0; index < count; index++) {
    const lines: TestLine[] = Array.from({ length: random.int(1, 3) }, () => {
      const quantity = random.int(1, 3);
      const amountCents = quantity * random.int(1, 25_000);
      return {
        productId: PRODUCTS[random.int(0, PRODUCTS.length - 1)] ?? "",
        quantity,
        amountCents,
        discountCents: random.next() < 0.3 ? random.int(0, amountCents) : 0,
      };
    });
    const itemsCents = lines.reduce((sum, line) => sum + line.amountCents, 0);
    const discountCents = lines.reduce((sum, line) => sum + line.discountCents, 0);
    const shippingCents = random.int(0, 2) * 499;
    const taxCents = random.int(0, 3_000);
    const totalCents = itemsCents - discountCents + shippingCents + taxCents;
    const paidAt = new Date(
      random.next() < 0.4
        ? (boundaries[random.int(0, boundaries.length - 1)] ?? WINDOW_START)
        : random.int(WINDOW_START, WINDOW_END - 1),
    );
    const livemode = [false, false, true, null][random.int(0, 3)] ?? false;
    const id = `pi_dash${seed}x${index}`;
    const items = lines.map((line) => ({
      productId: line.productId,
      title: `Product ${line.productId}`,
      priceCents: line.amountCents / line.quantity,
      quantity: line.quantity,
      rating: 4,
      image: { src: "/x.webp", width: 1, height: 1 },
    }));
    const pricing = {
      itemsCents,
      discountCents,
      shippingCents,
      totalBeforeTaxCents: itemsCents - discountCents + shippingCents,
      taxCents,
      totalCents,
      lines: lines.map((line, position) => ({
        key: String(position),
        title: "x",
        unitPriceCents: line.amountCents / line.quantity,
        ...line,
        taxCents: 0,
      })),
      shipping: null,
      deliveryOptions: [],
      isUndeliverable: false,
      taxes: [],
      promotion: null,
    };
    await db
      .insertInto("orders")
      .values({
        id,
        number: `SF-DASH-${seed}-${index}`,
        user_id: null,
        session_id: null,
        amount_cents: totalCents,
        currency: "usd",
        items: JSON.stringify(items),
        pricing: JSON.stringify(pricing),
        processor: "built-in",
        livemode,
        created_at: paidAt,
        paid_at: paidAt,
        delivery_address: null,
        contact_email: null,
        card_brand: null,
        card_last4: null,
      })
      .execute();
    orders.push({ id, livemode, paidAt, lines, itemsCents, discountCents });
    let left = totalCents;
    for (let made = 0; made < 2 && left > 0 && random.next() < 0.45; made++) {
      const amountCents = random.next() < 0.4 ? left : random.int(1, left);
      left -= amountCents;
      const at = new Date(
        Math.min(
          WINDOW_END + 86_400_000,
          paidAt.getTime() + (random.next() < 0.3 ? random.int(0, 3_600_000) : random.int(0, 4 * 86_400_000)),
        ),
      );
      await db
        .insertInto("order_refunds")
        .values({
          id: `re_dash${seed}x${index}x${made}`,
          order_id: id,
          amount_cents: amountCents,
          actor: "test",
          created_at: at,
        })
        .execute();
      refunds.push({ orderId: id, amountCents, at });
    }
  }
  return { orders, refunds };
}

/** The same share the dashboard makes, worked out here on its own: in proportion to each line's paid amount, largest remainders first. */
function shareRefund(amountCents: number, lines: TestLine[]): number[] {
  const paid = lines.map((line) => Math.max(line.amountCents - line.discountCents, 0));
  const weights = paid.some((cents) => cents > 0) ? paid : lines.map((line) => line.quantity);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const shares = weights.map((weight) => Math.floor((amountCents * weight) / total));
  const left = amountCents - shares.reduce((sum, share) => sum + share, 0);
  const byRemainder = weights
    .map((weight, index) => ({ index, remainder: (amountCents * weight) % total }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder.slice(0, left)) shares[index] = (shares[index] ?? 0) + 1;
  return shares;
}

const numeric = (value: unknown) => Number(value ?? 0);

describeEachDatabase("the sales dashboard's figures", (getDatabase) => {
  let sales: Awaited<ReturnType<typeof writeRandomSales>>;
  beforeAll(async () => {
    sales = await writeRandomSales(getDatabase().db, 7, 260);
  }, 120_000);

  const dashboardIn = (timeZone: string, livemode: boolean, now = new Date()) =>
    createSalesDashboard(getDatabase().db, {
      timeZone: async () => timeZone,
      livemode,
      now: () => now,
      countLowStock: async () => 0,
      countHeldPayments: async () => 0,
      recoveryFigures: async () => ({ reminded: 0, returned: 0, recoveredOrders: 0, recoveredCents: 0 }),
    });

  /** The figures by a direct query over orders and refunds, days cut by PostgreSQL's own time zone rules. */
  async function directFigures(timeZone: string, livemode: boolean, from: string, to: string) {
    const db = getDatabase().db;
    const mode = livemode ? sql`o.livemode = true` : sql`o.livemode is not true`;
    const localDay = (column: string) => sql`to_char(${sql.ref(column)} at time zone ${timeZone}, 'YYYY-MM-DD')`;
    const sold = await sql<{
      day: string;
      gross: string;
      discount: string;
      shipping: string;
      tax: string;
      orders: string;
      items: string;
    }>`
      select ${localDay("o.paid_at")} as day,
             sum((o.pricing->>'itemsCents')::bigint) as gross, sum((o.pricing->>'discountCents')::bigint) as discount,
             sum((o.pricing->>'shippingCents')::bigint) as shipping, sum((o.pricing->>'taxCents')::bigint) as tax, count(*) as orders,
             sum((select sum((item->>'quantity')::int) from jsonb_array_elements(o.items) as item)) as items
      from orders o where ${mode} and o.id like 'pi_dash%'
      group by 1`.execute(db);
    const refunded = await sql<{ day: string; refunds: string }>`
      select ${localDay("r.created_at")} as day, sum(r.amount_cents) as refunds
      from order_refunds r join orders o on o.id = r.order_id where ${mode} and o.id like 'pi_dash%'
      group by 1`.execute(db);
    const dates = datesFrom(from, to);
    const inPeriod = <T extends { day: string }>(rows: T[]) => rows.filter((row) => dates.includes(row.day));
    const total = (rows: Record<string, unknown>[], key: string) =>
      rows.reduce((sum, row) => sum + numeric(row[key]), 0);
    const soldRows = inPeriod(sold.rows);
    const refundRows = inPeriod(refunded.rows);
    const gross = total(soldRows, "gross");
    const discount = total(soldRows, "discount");
    const refunds = total(refundRows, "refunds");
    return {
      figures: {
        grossCents: gross,
        discountCents: discount,
        refundCents: refunds,
        netCents: gross - discount - refunds,
        shippingCents: total(soldRows, "shipping"),
        taxCents: total(soldRows, "tax"),
        orders: total(soldRows, "orders"),
        itemsSold: total(soldRows, "items"),
      },
      days: dates.map((date) => ({
        date,
        netCents:
          total(
            soldRows.filter((row) => row.day === date),
            "gross",
          ) -
          total(
            soldRows.filter((row) => row.day === date),
            "discount",
          ) -
          total(
            refundRows.filter((row) => row.day === date),
            "refunds",
          ),
      })),
    };
  }

  /** The best sellers worked out from the orders written, the refunds shared here. */
  function expectedTopProducts(timeZone: string, livemode: boolean, from: string, to: string) {
    const start = startOfDate(from, timeZone).getTime();
    const end = startOfDate(addDays(to, 1), timeZone).getTime();
    const isMode = (order: TestOrder) => (order.livemode === true) === livemode;
    const byProduct = new Map<string, { quantity: number; netCents: number }>();
    const entry = (productId: string) =>
      byProduct.get(productId) ?? byProduct.set(productId, { quantity: 0, netCents: 0 }).get(productId)!;
    for (const order of sales.orders.filter(
      (order) => isMode(order) && order.paidAt.getTime() >= start && order.paidAt.getTime() < end,
    )) {
      for (const line of order.lines) {
        entry(line.productId).quantity += line.quantity;
        entry(line.productId).netCents += line.amountCents - line.discountCents;
      }
    }
    const ordersById = new Map(sales.orders.map((order) => [order.id, order]));
    for (const refund of sales.refunds.filter((refund) => refund.at.getTime() >= start && refund.at.getTime() < end)) {
      const order = ordersById.get(refund.orderId)!;
      if (!isMode(order)) continue;
      shareRefund(refund.amountCents, order.lines).forEach((share, index) => {
        entry(order.lines[index]!.productId).netCents -= share;
      });
    }
    return [...byProduct.entries()]
      .map(([productId, figures]) => ({ productId, ...figures }))
      .sort((a, b) => b.netCents - a.netCents || (a.productId < b.productId ? -1 : 1))
      .slice(0, TOP_PRODUCTS);
  }

  const cases = [
    {
      timeZone: "America/New_York",
      livemode: false,
      from: "2026-03-05",
      to: "2026-03-10",
      what: "test orders in New York, across the change to summer time",
    },
    {
      timeZone: "America/New_York",
      livemode: true,
      from: "2026-03-04",
      to: "2026-03-12",
      what: "live orders in New York",
    },
    {
      timeZone: "Asia/Kolkata",
      livemode: false,
      from: "2026-03-04",
      to: "2026-03-11",
      what: "test orders in Kolkata, whose days start on the half hour",
    },
    { timeZone: "UTC", livemode: false, from: "2026-03-07", to: "2026-03-07", what: "one day in UTC" },
  ];

  for (const { timeZone, livemode, from, to, what } of cases) {
    it(`equals the sums over the orders and refunds, to the cent, day by day: ${what}`, async () => {
      const dashboard = await dashboardIn(timeZone, livemode).getDashboard({ period: "custom", from, to });
      const direct = await directFigures(timeZone, livemode, from, to);
      expect(direct.figures.orders).toBeGreaterThan(0);
      expect(direct.figures.refundCents).toBeGreaterThan(0);
      expect(dashboard.figures).toEqual({
        ...direct.figures,
        averageOrderValueCents: Math.round(
          (direct.figures.grossCents - direct.figures.discountCents) / direct.figures.orders,
        ),
      });
      expect(dashboard.days).toEqual(direct.days);
      expect(
        dashboard.topProducts.map(({ productId, quantity, netCents }) => ({ productId, quantity, netCents })),
      ).toEqual(expectedTopProducts(timeZone, livemode, from, to));
      // The best sellers' net, over every product, is the net sales.
      const allProducts = await sql<{ net: string }>`
        select sum(gross_cents - discount_cents - refund_cents) as net from product_sales_totals
        where livemode = ${livemode} and starts_at >= ${startOfDate(from, timeZone)} and starts_at < ${startOfDate(addDays(to, 1), timeZone)}`.execute(
        getDatabase().db,
      );
      expect(numeric(allProducts.rows[0]?.net)).toBe(dashboard.figures.netCents);
    });
  }

  it("keeps each product's day equal to its quarter hours that day", async () => {
    const differences = await sql<{ product_id: string }>`
      select coalesce(days.product_id, quarters.product_id) as product_id
      from product_sales_by_day as days
      full join (
        select livemode, (starts_at at time zone 'UTC')::date as day, product_id, sum(quantity) as quantity,
               sum(gross_cents) as gross_cents, sum(discount_cents) as discount_cents, sum(refund_cents) as refund_cents
        from product_sales_totals group by 1, 2, 3
      ) as quarters using (livemode, day, product_id)
      where (days.quantity, days.gross_cents, days.discount_cents, days.refund_cents)
            is distinct from (quarters.quantity, quarters.gross_cents, quarters.discount_cents, quarters.refund_cents)`.execute(
      getDatabase().db,
    );
    expect(differences.rows).toEqual([]);
    const days = await sql<{ count: string | number }>`select count(*) as count from product_sales_by_day`.execute(
      getDatabase().db,
    );
    expect(Number(days.rows[0]?.count)).toBeGreaterThan(20);
  });

  it("counts Today, Last 7 days and Last 30 days back from the shop's own date", async () => {
    // 03:00 UTC on 9 March is still 8 March in New York (UTC-4 since the 8th).
    const now = new Date("2026-03-09T03:00:00Z");
    const dashboard = dashboardIn("America/New_York", false, now);
    const today = await dashboard.getDashboard({ period: "today" });
    expect([today.from, today.to]).toEqual(["2026-03-08", "2026-03-08"]);
    expect(today.figures).toEqual(
      (
        await dashboardIn("America/New_York", false).getDashboard({
          period: "custom",
          from: "2026-03-08",
          to: "2026-03-08",
        })
      ).figures,
    );
    const week = await dashboard.getDashboard({ period: "last-7-days" });
    expect([week.from, week.to, week.days.length]).toEqual(["2026-03-02", "2026-03-08", 7]);
    const month = await dashboard.getDashboard({ period: "last-30-days" });
    expect([month.from, month.to, month.days.length]).toEqual(["2026-02-07", "2026-03-08", 30]);
    expect((await dashboardIn("Asia/Kolkata", false, now).getDashboard({ period: "today" })).from).toBe("2026-03-09");
  });

  it("never mixes test and live orders", async () => {
    const period = { period: "custom" as const, from: "2026-03-01", to: "2026-03-20" };
    const [test, live] = await Promise.all([
      dashboardIn("UTC", false).getDashboard(period),
      dashboardIn("UTC", true).getDashboard(period),
    ]);
    const count = (livemode: boolean) => sales.orders.filter((order) => (order.livemode === true) === livemode).length;
    expect([test.isTest, test.figures.orders]).toEqual([true, count(false)]);
    expect([live.isTest, live.figures.orders]).toEqual([false, count(true)]);
  });
});

describe("the shop's days", () => {
  it("are 23 and 25 hours long across summer time, and start on the half hour in Kolkata", () => {
    const hours = (date: string, zone: string) =>
      (startOfDate(addDays(date, 1), zone).getTime() - startOfDate(date, zone).getTime()) / 3_600_000;
    expect(hours("2026-03-08", "America/New_York")).toBe(23);
    expect(hours("2026-11-01", "America/New_York")).toBe(25);
    expect(startOfDate("2026-03-08", "Asia/Kolkata").toISOString()).toBe("2026-03-07T18:30:00.000Z");
  });
});
