// Migration 0040: EU withdrawals from a contract, one per form, by order and by time.

import { sql, type Kysely } from "kysely";

/**
 * Withdrawals from the contract under the EU's right of withdrawal ("Withdraw from contract here"): each one the
 * shopper confirmed, with its lines, name, e-mail and the moment it was received (the acknowledgement states it). A
 * form carries a key drawn when the page was shown, unique here, so a second submission of the same form finds the
 * first withdrawal instead of recording another.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table withdrawals (
      id uuid primary key default gen_random_uuid(),
      order_id text not null references orders (id) on delete cascade,
      idempotency_key text not null unique,
      lines jsonb not null,
      is_full boolean not null,
      name text not null,
      email text not null,
      return_id uuid references returns (id) on delete set null,
      received_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index withdrawals_by_order on withdrawals (order_id)`.execute(db);
  await sql`create index withdrawals_by_time on withdrawals (received_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table withdrawals`.execute(db);
}
