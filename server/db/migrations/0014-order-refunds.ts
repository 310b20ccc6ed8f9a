// Migration 0014: order refunds, one row per processor refund, and the index of the console's order search by e-mail.

import { sql, type Kysely } from "kysely";

/**
 * Refunds as the processor made them, one row per processor refund id: whichever of the console's call and the
 * processor's webhook records a refund first inserts the row, the other finds it, so an order's refunded amount
 * counts each refund once however many instances receive it. And the console's list of all orders, newest paid
 * first, by keyset on (paid_at, id), with or without a status filter.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table order_refunds (
      id text primary key,
      order_id text not null references orders (id) on delete cascade,
      amount_cents integer not null check (amount_cents > 0),
      idempotency_key text unique,
      actor text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await db.schema.createIndex("order_refunds_order").on("order_refunds").columns(["order_id", "created_at"]).execute();
  await db.schema.createIndex("orders_paid").on("orders").columns(["paid_at desc", "id desc"]).execute();
  await db.schema
    .createIndex("orders_status_paid")
    .on("orders")
    .columns(["status", "paid_at desc", "id desc"])
    .execute();
  await sql`create index orders_contact_email on orders (lower(contact_email))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("orders_contact_email").execute();
  await db.schema.dropIndex("orders_status_paid").execute();
  await db.schema.dropIndex("orders_paid").execute();
  await db.schema.dropTable("order_refunds").execute();
}
