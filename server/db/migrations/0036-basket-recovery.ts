// Migration 0036: basket reminders and their settings, and the consent a guest or an account gives to them.

import { sql, type Kysely } from "kysely";

/**
 * Basket reminders ("You left something in your basket"), sent only with consent: a guest's, given with the checkout
 * address (checkout_addresses.reminder_consent), or an account's preference (users.basket_reminders); an address can
 * stop them (a third purpose in email_opt_outs and unsubscribe_tokens). Each basket revision is reminded about at
 * most once per step (basket_reminders' unique key), whichever instance gets there first. recovery_settings is the
 * console's one row; until it is saved, RECOVERY_HOURS applies.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ["email_opt_outs", "unsubscribe_tokens"]) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_purpose_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_purpose_check`)} check (purpose in ('review-requests', 'stock-alerts', 'basket-reminders'))`.execute(
      db,
    );
  }
  await sql`alter table checkout_addresses add column reminder_consent boolean not null default false`.execute(db);
  await sql`alter table users add column basket_reminders boolean not null default false`.execute(db);
  // The sweep asks for baskets last changed within a window of time.
  await sql`create index baskets_updated_at on baskets (updated_at)`.execute(db);
  await sql`
    create table basket_reminders (
      id uuid primary key default gen_random_uuid(),
      basket_id uuid references baskets (id) on delete set null,
      basket_revision integer not null,
      step smallint not null check (step in (1, 2)),
      outcome text not null check (outcome in ('sent', 'skipped')),
      email text,
      user_id uuid references users (id) on delete set null,
      session_id uuid,
      restore_token_hash text unique,
      decided_at timestamptz not null,
      returned_at timestamptz
    )`.execute(db);
  await sql`create unique index basket_reminders_once on basket_reminders (basket_id, basket_revision, step)`.execute(
    db,
  );
  await sql`create index basket_reminders_by_email on basket_reminders (email, decided_at) where outcome = 'sent'`.execute(
    db,
  );
  await sql`create index basket_reminders_by_time on basket_reminders (decided_at) where outcome = 'sent'`.execute(db);
  await sql`
    create table recovery_settings (
      singleton boolean primary key default true check (singleton),
      enabled boolean not null,
      delay_hours integer not null check (delay_hours between 1 and 168),
      second_reminder boolean not null,
      second_promotion_code text,
      updated_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table recovery_settings`.execute(db);
  await sql`drop table basket_reminders`.execute(db);
  await sql`drop index baskets_updated_at`.execute(db);
  await sql`alter table users drop column basket_reminders`.execute(db);
  await sql`alter table checkout_addresses drop column reminder_consent`.execute(db);
  for (const table of ["email_opt_outs", "unsubscribe_tokens"]) {
    await sql`delete from ${sql.table(table)} where purpose = 'basket-reminders'`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_purpose_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_purpose_check`)} check (purpose in ('review-requests', 'stock-alerts'))`.execute(
      db,
    );
  }
}
