import { sql, type Kysely } from "kysely";

// The processor's tables. Written to be idempotent: a database made before the processor had migrations of its own
// already holds them (a shop created them, as its migration 0005-processor), and this first migration must then find
// them in place and change nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The processor's API keys and webhook signing secret, created on first use. One row, so every instance agrees.
  await db.schema
    .createTable("processor_keys")
    .ifNotExists()
    .addColumn("id", "smallint", (column) => column.primaryKey().check(sql`id = 1`))
    .addColumn("secret_key", "text", (column) => column.notNull())
    .addColumn("publishable_key", "text", (column) => column.notNull())
    .addColumn("webhook_secret", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();

  // PaymentIntents. A card is kept as brand and last four digits only; its number and CVC never reach the database.
  await db.schema
    .createTable("processor_payment_intents")
    .ifNotExists()
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("client_secret", "text", (column) => column.notNull().unique())
    .addColumn("amount", "integer", (column) => column.notNull().check(sql`amount between 1 and 99999999`))
    .addColumn("amount_received", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("currency", "text", (column) => column.notNull())
    .addColumn("status", "text", (column) =>
      column
        .notNull()
        .defaultTo("requires_payment_method")
        .check(sql`status in ('requires_payment_method', 'requires_action', 'succeeded', 'canceled')`),
    )
    .addColumn("metadata", "jsonb", (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("description", "text")
    .addColumn("automatic_payment_methods", "jsonb")
    .addColumn("payment_method_id", "text")
    .addColumn("card_brand", "text")
    .addColumn("card_last4", "text", (column) => column.check(sql`card_last4 ~ '^[0-9]{4}$'`))
    .addColumn("after_authentication", "jsonb")
    .addColumn("last_payment_error", "jsonb")
    .addColumn("canceled_at", "timestamptz")
    .addColumn("cancellation_reason", "text")
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();

  // Answers to POSTs sent with an Idempotency-Key, replayed for 24 hours (Stripe's window).
  await db.schema
    .createTable("processor_idempotency_keys")
    .ifNotExists()
    .addColumn("key_kind", "text", (column) => column.notNull())
    .addColumn("idempotency_key", "text", (column) => column.notNull())
    .addColumn("fingerprint", "text", (column) => column.notNull())
    .addColumn("state", "text", (column) => column.notNull().check(sql`state in ('pending', 'complete')`))
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("locked_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (column) => column.notNull())
    .addPrimaryKeyConstraint("processor_idempotency_keys_pkey", ["key_kind", "idempotency_key"])
    .execute();
  await db.schema
    .createIndex("processor_idempotency_keys_expires_at")
    .ifNotExists()
    .on("processor_idempotency_keys")
    .column("expires_at")
    .execute();

  // Webhook events, delivered from the database so that a restart or another instance carries on where one stopped.
  await db.schema
    .createTable("processor_events")
    .ifNotExists()
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("type", "text", (column) => column.notNull())
    .addColumn("payload", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("claim_token", "text")
    .addColumn("claimed_until", "timestamptz")
    .addColumn("delivered_at", "timestamptz")
    .addColumn("gave_up_at", "timestamptz")
    .addColumn("last_error", "text")
    .execute();
  // The delivery loop's question: which undelivered events are due?
  await db.schema
    .createIndex("processor_events_due")
    .ifNotExists()
    .on("processor_events")
    .column("next_attempt_at")
    .where(sql.ref("delivered_at"), "is", null)
    .where(sql.ref("gave_up_at"), "is", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("processor_events").ifExists().execute();
  await db.schema.dropTable("processor_idempotency_keys").ifExists().execute();
  await db.schema.dropTable("processor_payment_intents").ifExists().execute();
  await db.schema.dropTable("processor_keys").ifExists().execute();
}
