// Migration 0012: which processor took a payment and whether in live mode, on checkout payments and orders.

import type { Kysely } from "kysely";

// Which processor made each payment and order, and in which mode: the built-in test processor or Stripe, test or
// live. After an operator switches processors on the same database, an open intent of the other one is never
// reused or handed to a browser, and test orders can be told from real ones. Rows written before this are left
// null: nobody recorded which processor made them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("checkout_payments")
    .addColumn("processor", "text")
    .addColumn("livemode", "boolean")
    .execute();
  await db.schema.alterTable("orders").addColumn("processor", "text").addColumn("livemode", "boolean").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("processor").dropColumn("livemode").execute();
  await db.schema.alterTable("checkout_payments").dropColumn("processor").dropColumn("livemode").execute();
}
