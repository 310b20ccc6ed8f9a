import { sql, type Kysely } from "kysely";

// Each change of an intent counts up its version: a change is written only over the version it was decided on
// (compare-and-set), so the change and its event go in one statement, with no transaction held open between.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table processor_payment_intents add column if not exists version integer not null default 0`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table processor_payment_intents drop column if exists version`.execute(db);
}
