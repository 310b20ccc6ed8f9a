// Migration 0021: stock alerts ("Notify me when available"), each waiting once per address and product.

import { sql, type Kysely } from "kysely";

/**
 * "Notify me when available", kept by product for now: the stock model adds a variant id (null: the product's only
 * one) and offers it on out-of-stock variants. An address may unsubscribe from stock alerts separately from review
 * requests (a second purpose in email_opt_outs and unsubscribe_tokens). A migration of its own, after 0020-reviews,
 * because that one has shipped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ["email_opt_outs", "unsubscribe_tokens"]) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_purpose_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_purpose_check`)} check (purpose in ('review-requests', 'stock-alerts'))`.execute(
      db,
    );
  }
  await sql`
    create table stock_alerts (
      id uuid primary key default gen_random_uuid(),
      product_id text not null references products (id) on delete cascade,
      email text not null check (email = lower(email) and length(email) between 3 and 254),
      confirm_token_hash text unique,
      confirmed_at timestamptz,
      notified_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index stock_alerts_once on stock_alerts (product_id, email) where notified_at is null`.execute(
    db,
  );
  await sql`create index stock_alerts_waiting on stock_alerts (product_id) where confirmed_at is not null and notified_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table stock_alerts`.execute(db);
  for (const table of ["email_opt_outs", "unsubscribe_tokens"]) {
    await sql`delete from ${sql.table(table)} where purpose = 'stock-alerts'`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_purpose_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_purpose_check`)} check (purpose in ('review-requests'))`.execute(
      db,
    );
  }
}
