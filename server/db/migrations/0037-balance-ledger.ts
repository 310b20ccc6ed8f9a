// Migration 0037: the balance ledger of store credit and gift cards (append-only entries applied by trigger) and the
// balances a checkout pays with.

import { sql, type Kysely } from "kysely";

/**
 * Money the shop holds for its shoppers: a store credit account per user, and gift cards (a hash of the code and its
 * last four characters, never the code). Every change is a row of balance_entries, never updated or deleted; the
 * account's balance_cents is their sum, kept by a trigger in the inserting transaction, and its CHECK refuses any
 * row that would take it below zero, whatever code wrote it (docs/decisions/032).
 *
 * A hold (a payment being prepared) is a negative row; it is closed once, by a release row (+ the same amount,
 * `hold_entry_id` naming it), which a spend also writes before its own negative row. balance_cents is therefore what
 * can still be held or spent; the liability on a date is the sum of the rows other than holds and releases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table balance_accounts (
      id uuid primary key default gen_random_uuid(),
      kind text not null check (kind in ('store_credit', 'gift_card')),
      user_id uuid references users (id) on delete set null,
      code_hash text unique,
      last_four text check (last_four is null or length(last_four) = 4),
      initial_cents integer not null default 0 check (initial_cents >= 0),
      balance_cents integer not null default 0 check (balance_cents >= 0),
      currency text not null default 'usd',
      expires_at timestamptz,
      disabled_at timestamptz,
      note text,
      created_at timestamptz not null default now(),
      check ((kind = 'gift_card') = (code_hash is not null))
    )`.execute(db);
  // One store credit account per user, opened on first use.
  await sql`create unique index balance_accounts_store_credit on balance_accounts (user_id) where kind = 'store_credit'`.execute(
    db,
  );

  await sql`
    create table balance_entries (
      id bigint generated always as identity primary key,
      account_id uuid not null references balance_accounts (id),
      kind text not null check (kind in ('issue', 'hold', 'release', 'spend', 'refund', 'adjust', 'expire')),
      amount_cents integer not null check (
        case
          when kind in ('issue', 'release', 'refund') then amount_cents > 0
          when kind in ('hold', 'spend', 'expire') then amount_cents < 0
          else amount_cents <> 0
        end),
      hold_key text,
      hold_entry_id bigint references balance_entries (id),
      hold_expires_at timestamptz,
      order_id text,
      refund_id text,
      actor text,
      note text,
      created_at timestamptz not null default now(),
      check ((kind in ('hold', 'spend')) <= (hold_key is not null)),
      check ((kind = 'release') = (hold_entry_id is not null) or kind = 'spend'),
      check ((kind = 'refund') = (refund_id is not null)),
      check ((kind = 'adjust') <= (actor is not null and note is not null))
    )`.execute(db);
  // Exactly once, whatever the code: a hold is closed once; a payment spends an account once; a refund gives back once.
  await sql`create unique index balance_entries_hold_closed on balance_entries (hold_entry_id) where kind = 'release'`.execute(
    db,
  );
  await sql`create unique index balance_entries_spent_once on balance_entries (account_id, hold_key) where kind = 'spend'`.execute(
    db,
  );
  await sql`create unique index balance_entries_refunded_once on balance_entries (account_id, refund_id) where kind = 'refund'`.execute(
    db,
  );
  await sql`create index balance_entries_account on balance_entries (account_id, id)`.execute(db);
  await sql`create index balance_entries_hold_key on balance_entries (hold_key) where kind = 'hold'`.execute(db);
  await sql`create index balance_entries_hold_expiry on balance_entries (hold_expires_at) where kind = 'hold'`.execute(
    db,
  );
  await sql`create index balance_entries_created_at on balance_entries (created_at)`.execute(db);

  // The balances a checkout pays with (an account's own store credit, gift cards typed in): applied on /payment,
  // priced with the basket, held with the payment, spent with the order.
  await sql`
    create table checkout_balances (
      id uuid primary key default gen_random_uuid(),
      user_id uuid references users (id) on delete cascade,
      session_id uuid references sessions (id) on delete cascade,
      account_id uuid not null references balance_accounts (id),
      applied_at timestamptz not null default now(),
      check ((user_id is null) <> (session_id is null))
    )`.execute(db);
  await sql`create unique index checkout_balances_user on checkout_balances (user_id, account_id) where user_id is not null`.execute(
    db,
  );
  await sql`create unique index checkout_balances_session on checkout_balances (session_id, account_id) where session_id is not null`.execute(
    db,
  );

  await sql`
    create function balance_entries_apply() returns trigger language plpgsql as $$
    begin
      update balance_accounts set balance_cents = balance_cents + new.amount_cents where id = new.account_id;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger balance_entries_apply after insert on balance_entries
    for each row execute function balance_entries_apply()`.execute(db);
  await sql`
    create function balance_entries_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'balance_entries is append-only';
    end $$`.execute(db);
  await sql`
    create trigger balance_entries_append_only before update or delete on balance_entries
    for each row execute function balance_entries_append_only()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists checkout_balances`.execute(db);
  await sql`drop table if exists balance_entries`.execute(db);
  await sql`drop function if exists balance_entries_apply()`.execute(db);
  await sql`drop function if exists balance_entries_append_only()`.execute(db);
  await sql`drop table if exists balance_accounts`.execute(db);
}
