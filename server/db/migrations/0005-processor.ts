import { sql, type Kysely } from "kysely";

// Tables of the built-in test-mode processor (server/payments/processor). The shop never reads them: it talks to the
// processor over HTTP, as it would to Stripe.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The processor's API keys and webhook signing secret, created on first use. One row, so every instance agrees.
  await db.schema
    .createTable("processor_keys")
    .addColumn("id", "smallint", (column) => column.primaryKey().check(sql`id = 1`))
    .addColumn("secret_key", "text", (column) => column.notNull())
    .addColumn("publishable_key", "text", (column) => column.notNull())
    .addColumn("webhook_secret", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();

  // PaymentIntents. A card is kept as brand and last four digits only; its number and CVC never reach the database.
  await db.schema
    .createTable("processor_payment_intents")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("client_secret", "text", (column) => column.notNull().unique())
    .addColumn("amount", "integer", (column) => column.notNull().check(sql`amount between 1 and 99999999`))
    .addColumn("amount_received", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("currency", "text", (column) => column.notNull())
    .addColumn("status", "text", (column) =>
      column.notNull().defaultTo("requires_payment_method").check(sql`status in ('requires_payment_method', 'requires_action', 'succeeded', 'canceled')`),
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
  await db.schema.createIndex("processor_idempotency_keys_expires_at").on("processor_idempotency_keys").column("expires_at").execute();

  // Webhook events, delivered from the database so that a restart or another instance carries on where one stopped.
  await db.schema
    .createTable("processor_events")
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
    .on("processor_events")
    .column("next_attempt_at")
    .where(sql.ref("delivered_at"), "is", null)
    .where(sql.ref("gave_up_at"), "is", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("processor_events").execute();
  await db.schema.dropTable("processor_idempotency_keys").execute();
  await db.schema.dropTable("processor_payment_intents").execute();
  await db.schema.dropTable("processor_keys").execute();
}
