// Migration 0004: checkout payments (the intent and what it is for), orders keyed by their intent, and the webhook
// events already processed.

import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per payment intent the shop created: who is paying, for exactly which priced basket.
  await db.schema
    .createTable("checkout_payments")
    .addColumn("payment_intent_id", "text", (column) => column.primaryKey())
    .addColumn("user_id", "uuid", (column) => column.references("users.id").onDelete("cascade"))
    .addColumn("session_id", "uuid", (column) => column.references("sessions.id").onDelete("set null"))
    .addColumn("client_secret", "text", (column) => column.notNull())
    .addColumn("amount_cents", "integer", (column) => column.notNull().check(sql`amount_cents > 0`))
    .addColumn("currency", "text", (column) => column.notNull())
    .addColumn("basket_fingerprint", "text", (column) => column.notNull())
    .addColumn("items", "jsonb", (column) => column.notNull())
    .addColumn("status", "text", (column) => column.notNull().check(sql`status in ('open', 'replaced', 'paid')`))
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("checkout_payments_user_open")
    .on("checkout_payments")
    .columns(["user_id", "status"])
    .execute();
  await db.schema
    .createIndex("checkout_payments_session_open")
    .on("checkout_payments")
    .columns(["session_id", "status"])
    .execute();

  // A paid order, keyed by its payment intent: the primary key is what makes recording it exactly once.
  await db.schema
    .createTable("orders")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("user_id", "uuid", (column) => column.references("users.id").onDelete("cascade"))
    .addColumn("session_id", "uuid", (column) => column.references("sessions.id").onDelete("set null"))
    .addColumn("amount_cents", "integer", (column) => column.notNull())
    .addColumn("currency", "text", (column) => column.notNull())
    .addColumn("items", "jsonb", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull())
    .addColumn("recorded_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("orders_user_newest")
    .on("orders")
    .columns(["user_id", "created_at desc", "id desc"])
    .execute();
  await db.schema
    .createIndex("orders_session_newest")
    .on("orders")
    .columns(["session_id", "created_at desc", "id desc"])
    .execute();

  // Webhook events already handled, so a redelivery is acknowledged without being acted on twice.
  await db.schema
    .createTable("processed_webhook_events")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("type", "text", (column) => column.notNull())
    .addColumn("processed_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("processed_webhook_events").execute();
  await db.schema.dropTable("orders").execute();
  await db.schema.dropTable("checkout_payments").execute();
}
