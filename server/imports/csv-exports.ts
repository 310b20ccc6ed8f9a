// The console's CSV downloads (products, orders, outstanding balances), each streamed and named by the day it was made.

import type { DB } from "#server/db/client";
import { ORDER_EXPORT_COLUMNS, orderCsvRows } from "#server/imports/order-csv-export";
import type { AdminOrderFilter } from "#server/admin/console-orders";
import { csvDownload } from "./csv-download";
import { productCsvRows } from "./product-csv-export";
import { PRODUCT_EXPORT_COLUMNS } from "./product-csv-layout";

/** The console's CSV downloads, each streamed as it is read (csv-download.ts), named by the day it was made. */
export function createCsvExports(
  db: DB,
  { today = () => new Date().toISOString().slice(0, 10) }: { today?: () => string } = {},
) {
  return {
    /** Every product in Shopify's current layout; pictures by their address at `origin` (the shop's public origin). */
    products: (request: Request, origin: string): Response =>
      csvDownload(request, {
        fileName: `products-${today()}.csv`,
        columns: PRODUCT_EXPORT_COLUMNS,
        rows: productCsvRows(db, { origin }),
      }),
    /** The orders the console's list shows for `filter`, one row per line, in Shopify's orders export layout. */
    orders: (request: Request, filter: AdminOrderFilter): Response =>
      csvDownload(request, {
        fileName: `orders-${today()}.csv`,
        columns: ORDER_EXPORT_COLUMNS,
        rows: orderCsvRows(db, filter),
      }),
  };
}

export type CsvExports = ReturnType<typeof createCsvExports>;
