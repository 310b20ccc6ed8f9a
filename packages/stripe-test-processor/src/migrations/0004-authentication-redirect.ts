import { sql, type Kysely } from "kysely";

// The 3-D Secure challenge of a payment confirmed with a return_url (no Stripe.js to show it in the page): the hosted
// authentication page's address, its single-use token and where it sends the shopper back. Null when none is pending.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table processor_payment_intents add column if not exists pending_redirect jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table processor_payment_intents drop column if exists pending_redirect`.execute(db);
}
