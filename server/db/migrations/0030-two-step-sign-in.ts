// Migration 0030: two-step sign-in: authenticator secrets, recovery codes, waiting sign-ins, known console devices and
// the staff's policy.

import { sql, type Kysely } from "kysely";

/**
 * Two-step sign-in: an account's authenticator secret and the last time step it accepted (a code works once), its
 * recovery codes (hashed), the sign-ins waiting for a code after the password, the browsers each operator has
 * signed in from (hashed device cookies, for the new-device e-mail), and the shop's one setting of whether staff
 * must use it (null: the default, on when the shop takes live payments).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table two_step_accounts (
      user_id uuid primary key references users (id) on delete cascade,
      secret text not null check (secret ~ '^[A-Z2-7]{32}$'),
      confirmed_at timestamptz,
      last_used_step bigint not null default 0,
      failed_codes integer not null default 0,
      locked_until timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table two_step_recovery_codes (
      user_id uuid not null references users (id) on delete cascade,
      code_hash text not null,
      used_at timestamptz,
      primary key (user_id, code_hash)
    )`.execute(db);
  await sql`
    create table two_step_challenges (
      token_hash text primary key,
      user_id uuid not null references users (id) on delete cascade,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index two_step_challenges_expiry on two_step_challenges (expires_at)`.execute(db);
  await sql`
    create table console_devices (
      user_id uuid not null references users (id) on delete cascade,
      device_hash text not null,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      primary key (user_id, device_hash)
    )`.execute(db);
  await sql`
    create table two_step_policy (
      id boolean primary key default true check (id),
      required_for_staff boolean,
      updated_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "two_step_policy",
    "console_devices",
    "two_step_challenges",
    "two_step_recovery_codes",
    "two_step_accounts",
  ])
    await sql`drop table ${sql.table(table)}`.execute(db);
}
