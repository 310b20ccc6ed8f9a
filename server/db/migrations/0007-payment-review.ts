// Migration 0007: a checkout payment's revision, pending fingerprint and review reason, for a payment that does not
// match its basket.

import { sql, type Kysely } from "kysely";

// A payment row's revision counts every claim and re-pricing, so two overlapping re-pricings of one shopper's intent
// are told apart (compare-and-set) instead of the later row write silently winning over the later processor call;
// pending_fingerprint marks a re-pricing on its way to the processor, which nobody may take as settled. A paid intent
// whose amount or basket fingerprint is not the row's is never fulfilled: the row is marked needs_review with what
// was paid, for the operator to refund.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("checkout_payments")
    .addColumn("revision", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("pending_fingerprint", "text")
    .addColumn("paid_amount_cents", "integer")
    .addColumn("review_reason", "text")
    .execute();
  await setStatuses(db, ["open", "replaced", "paid", "needs_review"]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setStatuses(db, ["open", "replaced", "paid"]);
  await db.schema
    .alterTable("checkout_payments")
    .dropColumn("revision")
    .dropColumn("pending_fingerprint")
    .dropColumn("paid_amount_cents")
    .dropColumn("review_reason")
    .execute();
}

/** Through the schema builder, so the statement names the migrated schema (raw SQL would follow search_path). */
async function setStatuses(db: Kysely<unknown>, statuses: string[]): Promise<void> {
  const table = db.schema.alterTable("checkout_payments");
  await table.dropConstraint("checkout_payments_status_check").execute();
  await table
    .addCheckConstraint(
      "checkout_payments_status_check",
      sql`status in (${sql.join(statuses.map((status) => sql.lit(status)))})`,
    )
    .execute();
}
