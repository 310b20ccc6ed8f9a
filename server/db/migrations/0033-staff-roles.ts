// Migration 0033: each operator's role and areas, and staff invitations as account tokens.

import { sql, type Kysely } from "kysely";

/**
 * Staff roles: each console account is an Owner (everything), a Manager (everything but staff and settings) or Staff
 * (the areas ticked for them), and a new member joins by an e-mailed invitation that sets their password.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table operators
      add column role text not null default 'manager' check (role in ('owner', 'manager', 'staff')),
      add column areas text[] not null default '{}'
        check (areas <@ array['orders', 'refunds', 'products', 'promotions', 'reviews', 'shipping', 'reports'])`.execute(
    db,
  );
  // Everyone who ran the shop keeps doing so as a Manager; one of them must own it (start-up makes the OPERATOR_EMAIL
  // account an Owner too): the one start-up made first, else the longest-serving.
  await sql`
    update operators set role = 'owner'
    where user_id = (select user_id from operators order by granted_by is null desc, granted_at, user_id limit 1)`.execute(
    db,
  );
  await sql`alter table account_tokens drop constraint account_tokens_purpose_check`.execute(db);
  await sql`
    alter table account_tokens add constraint account_tokens_purpose_check
      check (purpose in ('password-reset', 'email-verification', 'staff-invitation'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from account_tokens where purpose = 'staff-invitation'`.execute(db);
  await sql`alter table account_tokens drop constraint account_tokens_purpose_check`.execute(db);
  await sql`
    alter table account_tokens add constraint account_tokens_purpose_check
      check (purpose in ('password-reset', 'email-verification'))`.execute(db);
  await sql`alter table operators drop column areas, drop column role`.execute(db);
}
