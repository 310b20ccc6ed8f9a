import type { Kysely } from "kysely";

// A PaymentIntent's `shipping` (name, address, carrier, phone, tracking number), kept as Stripe returns it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("processor_payment_intents").addColumn("shipping", "jsonb").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("processor_payment_intents").dropColumn("shipping").execute();
}
