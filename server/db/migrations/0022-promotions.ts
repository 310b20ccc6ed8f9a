// Migration 0022: promotion codes and their uses, the code kept beside the checkout address, and the discount on the
// order.

import { sql, type Kysely } from "kysely";

/**
 * Promotion codes and their uses. A use is held for a payment as stock is (keyed by the payment's hold: its intent id,
 * a key of its own while the intent is made, or a $0.00 order's id), counts against "Total uses" while it is live,
 * and becomes a redemption in the transaction that records the order. The order keeps the code, its type and the
 * discount; a payment that succeeded after its use lapsed and the last use went elsewhere is marked over the limit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table promotions (
      id uuid primary key default gen_random_uuid(),
      code text not null unique check (code ~ '^[A-Z0-9-]{3,32}$'),
      kind text not null check (kind in ('percentage', 'amount', 'free-delivery')),
      -- A percentage (1 to 100), an amount in cents, or 0 for free delivery.
      value integer not null check (value >= 0),
      minimum_subtotal_cents integer not null default 0 check (minimum_subtotal_cents >= 0),
      starts_at timestamptz,
      ends_at timestamptz,
      usage_limit integer check (usage_limit > 0),
      once_per_customer boolean not null default false,
      status text not null default 'active' check (status in ('active', 'paused')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (kind <> 'percentage' or value between 1 and 100),
      check (kind <> 'amount' or value > 0),
      check (ends_at is null or starts_at is null or ends_at > starts_at)
    )`.execute(db);
  await sql`
    create table promotion_uses (
      hold text primary key,
      promotion_id uuid not null references promotions (id),
      user_id uuid references users (id) on delete set null,
      session_id uuid references sessions (id) on delete set null,
      customer_email text check (customer_email = lower(customer_email)),
      expires_at timestamptz not null,
      order_id text unique references orders (id) on delete set null,
      redeemed_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index promotion_uses_promotion on promotion_uses (promotion_id, expires_at)`.execute(db);
  await sql`create index promotion_uses_customer on promotion_uses (promotion_id, customer_email) where redeemed_at is not null`.execute(
    db,
  );
  await sql`alter table checkout_addresses add column promotion_code text`.execute(db);
  await sql`
    alter table orders
      add column promotion_code text,
      add column promotion_kind text check (promotion_kind in ('percentage', 'amount', 'free-delivery')),
      add column discount_cents integer not null default 0 check (discount_cents >= 0),
      add column promotion_over_limit boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column promotion_code, drop column promotion_kind, drop column discount_cents, drop column promotion_over_limit`.execute(
    db,
  );
  await sql`alter table checkout_addresses drop column promotion_code`.execute(db);
  await sql`drop table promotion_uses`.execute(db);
  await sql`drop table promotions`.execute(db);
}
