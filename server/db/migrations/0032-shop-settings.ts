// Migration 0032: the shop's own settings, whose changes move the catalogue version.

import { sql, type Kysely } from "kysely";

/**
 * The shop's own settings, set in the console: one row, every column null until saved (null reads as the default:
 * the environment's, or the shop's built-in text). A write moves the catalogue's version, as a product's does, so every
 * instance drops its kept guest pages and settings within a second (docs/decisions/017's mechanism, not a second one).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table shop_settings (
      singleton boolean primary key default true check (singleton),
      shop_name text,
      logo_src text,
      logo_src_set text,
      logo_width integer,
      logo_height integer,
      support_email text,
      email_from_name text,
      postal_address text,
      return_address text,
      return_window_days integer check (return_window_days between 0 and 365),
      return_fee_cents integer check (return_fee_cents >= 0),
      time_zone text,
      conditions_text text,
      privacy_text text,
      returns_text text,
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`insert into shop_settings default values`.execute(db);
  await sql`
    create trigger shop_settings_bump_catalogue_version after insert or update or delete or truncate on shop_settings
    for each statement execute function bump_catalogue_version()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table shop_settings`.execute(db);
}
