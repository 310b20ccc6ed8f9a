// The orders CSV in Shopify's export layout: one row per order line, the order's figures on its first line only, so
// each column sums to the orders' totals.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import { csvMoney } from "#server/imports/csv-cells";
import { readOrderItem } from "#shared/orders";
import { filterOrders, type AdminOrderFilter } from "#server/admin/console-orders";

/**
 * The columns of the orders export, as accountants know them from Shopify's orders export: one row per order line,
 * the order's own figures on its first line only (so a column's sum is the orders' total), its name and e-mail on
 * every line.
 */
export const ORDER_EXPORT_COLUMNS = [
  "Name",
  "Email",
  "Financial Status",
  "Fulfillment Status",
  "Paid at",
  "Subtotal",
  "Shipping",
  "Taxes",
  "Total",
  "Discount Code",
  "Discount Amount",
  "Refunded Amount",
  "Lineitem quantity",
  "Lineitem name",
  "Lineitem price",
  "Lineitem sku",
  "Lineitem returned quantity",
  "Shipping Name",
  "Shipping Address1",
  "Shipping City",
  "Shipping Zip",
  "Shipping Province",
  "Shipping Country",
] as const;

/** Orders read at a time. */
const EXPORT_PAGE_SIZE = 500;

/** Shopify's financial status from what was paid and given back. */
function financialStatus(amountCents: number, refundedCents: number): string {
  if (refundedCents <= 0) return "paid";
  return refundedCents >= amountCents ? "refunded" : "partially_refunded";
}

/** "2026-11-23 14:05:09 +0000", as Shopify's export writes a time. */
function exportTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} +0000`;
}

/**
 * The orders the console's list shows for `filter`, newest paid first, as rows of ORDER_EXPORT_COLUMNS, read a page
 * at a time by the list's own keyset, so an export of every order holds one page in memory. Figures come from the
 * order's pricing as charged (its subtotal after any discount, its shipping, tax and code); an order from before
 * pricing was kept has its total as its subtotal.
 */
export async function* orderCsvRows(db: DB, filter: AdminOrderFilter): AsyncGenerator<string[]> {
  // The last order's paid_at as PostgreSQL writes it (microseconds and offset): a Date would drop the microseconds
  // and skip the orders paid within the same millisecond.
  let after: { paidAt: string; id: string } | null = null;
  for (;;) {
    let page = filterOrders(
      db
        .selectFrom("orders")
        .select([
          "id",
          "number",
          "contact_email",
          "fulfilment_status",
          "paid_at",
          "amount_cents",
          "refunded_cents",
          "items",
          "pricing",
          "delivery_address",
        ])
        .select(sql<string>`paid_at::text`.as("paid_at_exact"))
        .orderBy("paid_at", "desc")
        .orderBy("id", "desc")
        .limit(EXPORT_PAGE_SIZE),
      filter,
    );
    if (after) page = page.where(sql<boolean>`(paid_at, id) < (${after.paidAt}::timestamptz, ${after.id})`);
    const orders = await page.execute();
    if (orders.length === 0) return;
    // Units of each line received back by returns (what the shop has in hand again), by order and line.
    const returned = await db
      .selectFrom("return_lines")
      .innerJoin("returns", "returns.id", "return_lines.return_id")
      .select([
        "returns.order_id",
        "return_lines.line_index",
        sql<number>`sum(return_lines.received_quantity)::int`.as("units"),
      ])
      .where(
        "returns.order_id",
        "in",
        orders.map((order) => order.id),
      )
      .where("return_lines.received_quantity", "is not", null)
      .groupBy(["returns.order_id", "return_lines.line_index"])
      .execute();
    for (const order of orders) {
      const pricing = order.pricing;
      const address = order.delivery_address;
      const items = order.items.map(readOrderItem);
      for (const [index, item] of items.entries()) {
        const isFirst = index === 0;
        const orderCell = (value: string) => (isFirst ? value : "");
        const optionValues = (item.options ?? []).map((option) => option.value);
        const row: Record<(typeof ORDER_EXPORT_COLUMNS)[number], string> = {
          Name: order.number,
          Email: order.contact_email ?? "",
          "Financial Status": orderCell(financialStatus(order.amount_cents, order.refunded_cents)),
          "Fulfillment Status": orderCell(
            order.fulfilment_status === "unfulfilled" || order.fulfilment_status === "cancelled"
              ? "unfulfilled"
              : "fulfilled",
          ),
          "Paid at": orderCell(exportTime(order.paid_at)),
          Subtotal: orderCell(csvMoney(pricing ? pricing.itemsCents - pricing.discountCents : order.amount_cents)),
          Shipping: orderCell(csvMoney(pricing?.shippingCents ?? 0)),
          Taxes: orderCell(csvMoney(pricing?.taxCents ?? 0)),
          Total: orderCell(csvMoney(order.amount_cents)),
          "Discount Code": orderCell(pricing?.promotion?.code ?? ""),
          "Discount Amount": orderCell(csvMoney(pricing?.discountCents ?? 0)),
          "Refunded Amount": orderCell(csvMoney(order.refunded_cents)),
          "Lineitem quantity": String(item.quantity),
          "Lineitem name": optionValues.length > 0 ? `${item.title} - ${optionValues.join(" / ")}` : item.title,
          "Lineitem price": csvMoney(item.priceCents),
          "Lineitem sku": item.sku ?? "",
          "Lineitem returned quantity": String(
            returned.find((row) => row.order_id === order.id && row.line_index === index)?.units ?? 0,
          ),
          "Shipping Name": orderCell(address?.name ?? ""),
          "Shipping Address1": orderCell(address?.line1 ?? ""),
          "Shipping City": orderCell(address?.city ?? ""),
          "Shipping Zip": orderCell(address?.postalCode ?? ""),
          "Shipping Province": orderCell(address?.region ?? ""),
          "Shipping Country": orderCell(address?.country ?? ""),
        };
        yield ORDER_EXPORT_COLUMNS.map((column) => row[column]);
      }
    }
    const last = orders[orders.length - 1]!;
    after = { paidAt: last.paid_at_exact, id: last.id };
  }
}
