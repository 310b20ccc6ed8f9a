// Migration 0013, the operator's console: operators, the audit log, and pictures kept in the database.

import { sql, type Kysely } from "kysely";

/**
 * The operator console: who holds the operator role, what every operator did (kept), and the pictures operators
 * upload, stored in the database so that every instance serves them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table operators (
      user_id uuid primary key references users (id) on delete cascade,
      granted_at timestamptz not null default now(),
      granted_by uuid references users (id) on delete set null
    )`.execute(db);

  // Kept for good: the operator's e-mail is copied so an entry still says who after the account is gone.
  await sql`
    create table audit_log (
      id bigint generated always as identity primary key,
      operator_id uuid references users (id) on delete set null,
      operator_email text not null,
      action text not null,
      subject text not null,
      before jsonb,
      after jsonb,
      created_at timestamptz not null default now()
    )`.execute(db);

  // One row per encoded width, named by a hash of its bytes: a name never changes what it serves.
  await sql`
    create table pictures (
      name text primary key check (name ~ '^[a-f0-9]{32}\\.webp$'),
      content bytea not null,
      width integer not null,
      height integer not null,
      created_at timestamptz not null default now()
    )`.execute(db);

  // The widths a picture exists at, as an <img srcset>; null for the seeded pictures, which exist at one size.
  await sql`alter table products add column image_srcset text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table products drop column image_srcset`.execute(db);
  await sql`drop table pictures`.execute(db);
  await sql`drop table audit_log`.execute(db);
  await sql`drop table operators`.execute(db);
}
