import { sql, type Kysely } from "kysely";

// Closer to Stripe: the `processing` state, the charge a successful payment makes (refunds are made against it), the
// receipt e-mail Stripe accepts, and refunds themselves. Idempotent, as 0001 is: a database whose processor history
// was lost finds everything in place.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table processor_payment_intents drop constraint if exists processor_payment_intents_status_check`.execute(
    db,
  );
  await sql`alter table processor_payment_intents add constraint processor_payment_intents_status_check
    check (status in ('requires_payment_method', 'requires_action', 'processing', 'succeeded', 'canceled'))`.execute(
    db,
  );
  await sql`alter table processor_payment_intents add column if not exists latest_charge text`.execute(db);
  await sql`alter table processor_payment_intents add column if not exists receipt_email text`.execute(db);
  // What a processing payment turns into when the test helper finishes it (the card's own outcome).
  await sql`alter table processor_payment_intents add column if not exists after_processing jsonb`.execute(db);
  await sql`create unique index if not exists processor_payment_intents_latest_charge on processor_payment_intents (latest_charge)`.execute(
    db,
  );

  // Refunds of a payment's charge. Their sum never exceeds the amount received: each refund is written under the
  // intent's row lock, after summing the others.
  await db.schema
    .createTable("processor_refunds")
    .ifNotExists()
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("payment_intent_id", "text", (column) => column.notNull().references("processor_payment_intents.id"))
    .addColumn("charge_id", "text", (column) => column.notNull())
    .addColumn("amount", "integer", (column) => column.notNull().check(sql`amount > 0`))
    .addColumn("currency", "text", (column) => column.notNull())
    .addColumn("status", "text", (column) =>
      column.notNull().check(sql`status in ('pending', 'succeeded', 'failed', 'canceled')`),
    )
    .addColumn("reason", "text")
    .addColumn("metadata", "jsonb", (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("processor_refunds_payment_intent")
    .ifNotExists()
    .on("processor_refunds")
    .columns(["payment_intent_id", "created_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("processor_refunds").ifExists().execute();
  await sql`drop index if exists processor_payment_intents_latest_charge`.execute(db);
  await sql`alter table processor_payment_intents drop column if exists latest_charge, drop column if exists receipt_email, drop column if exists after_processing`.execute(
    db,
  );
  await sql`alter table processor_payment_intents drop constraint if exists processor_payment_intents_status_check`.execute(
    db,
  );
  await sql`alter table processor_payment_intents add constraint processor_payment_intents_status_check
    check (status in ('requires_payment_method', 'requires_action', 'succeeded', 'canceled'))`.execute(db);
}
