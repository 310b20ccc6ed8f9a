// Migration 0039: returns and their lines, restocks by return, and an order's access key for its guest link.

import { sql, type Kysely } from "kysely";

/**
 * Returns and replacements. A return is asked for by a shopper (or opened for them by the EU withdrawal function:
 * `kind` 'withdrawal', which asks no reason), decided by an operator, received line by line (received and damaged
 * units), then refunded or replaced. `return_lines` holds each order line's units asked for, received and damaged, its
 * reason and its resolution (a refund, or a replacement variant of the same product). Nothing else (a refund, a
 * restock, a replacement order) exists until the operator says so; each one then points back at its return.
 *
 * Every order gets an `access_key` (random, 256 bits shown as 64 hex digits): the guest's signed link in its e-mails
 * carries a signature made with it, so a guest reaches their order (and its returns) from any device without an
 * account. A replacement order names its return (`replaces_return_id`). A restock caused by a return is a row of
 * order_restocks with its return and line, unique, so two instances marking the same line received restock it once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table orders
      add column access_key text not null
        default (replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''))`.execute(db);

  await sql`
    create table returns (
      id uuid primary key default gen_random_uuid(),
      number text not null unique check (char_length(number) <= 40),
      order_id text not null references orders (id) on delete cascade,
      kind text not null default 'return' check (kind in ('return', 'withdrawal')),
      status text not null default 'requested'
        check (status in ('requested', 'approved', 'declined', 'received', 'refunded', 'cancelled')),
      -- The same form sent twice (a double submit, a retry) opens one return.
      request_key text unique check (char_length(request_key) <= 200),
      requested_by text not null check (char_length(requested_by) <= 254),
      -- The shop's return fee when asked for (a later change of the setting does not change it); 0 for a withdrawal.
      return_fee_cents integer not null default 0 check (return_fee_cents >= 0),
      -- Whether the refund includes the order's delivery charge (a withdrawal from every line).
      include_shipping boolean not null default false,
      decision_message text check (char_length(decision_message) <= 2000),
      decided_by text check (char_length(decided_by) <= 254),
      refund_id text,
      refund_cents integer check (refund_cents >= 0),
      replacement_order_id text references orders (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      decided_at timestamptz,
      received_at timestamptz,
      refunded_at timestamptz,
      cancelled_at timestamptz
    )`.execute(db);
  await sql`create index returns_order on returns (order_id)`.execute(db);
  // The console's list (Requested first, then newest) and Needs attention (open returns by age).
  await sql`create index returns_status_created on returns (status, created_at desc, id desc)`.execute(db);

  await sql`
    create table return_lines (
      return_id uuid not null references returns (id) on delete cascade,
      line_index integer not null check (line_index >= 0),
      quantity integer not null check (quantity > 0),
      reason text check (reason in ('changed_mind', 'arrived_damaged', 'wrong_item', 'doesnt_fit', 'other')),
      resolution text not null default 'refund' check (resolution in ('refund', 'replace')),
      replacement_variant_id text,
      received_quantity integer check (received_quantity >= 0 and received_quantity <= quantity),
      damaged_quantity integer check (damaged_quantity >= 0 and damaged_quantity <= received_quantity),
      received_at timestamptz,
      received_by text check (char_length(received_by) <= 254),
      primary key (return_id, line_index),
      check ((resolution = 'replace') = (replacement_variant_id is not null))
    )`.execute(db);

  await sql`alter table orders add column replaces_return_id uuid references returns (id) on delete set null`.execute(
    db,
  );
  await sql`create unique index orders_replaces_return on orders (replaces_return_id) where replaces_return_id is not null`.execute(
    db,
  );

  await sql`alter table order_restocks drop constraint order_restocks_cause_check`.execute(db);
  await sql`alter table order_restocks add constraint order_restocks_cause_check check (cause in ('refund', 'cancel', 'return'))`.execute(
    db,
  );
  await sql`alter table order_restocks add column return_id uuid references returns (id) on delete cascade`.execute(db);
  await sql`create unique index order_restocks_return_line on order_restocks (return_id, line_index) where return_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index order_restocks_return_line`.execute(db);
  await sql`alter table order_restocks drop column return_id`.execute(db);
  await sql`delete from order_restocks where cause = 'return'`.execute(db);
  await sql`alter table order_restocks drop constraint order_restocks_cause_check`.execute(db);
  await sql`alter table order_restocks add constraint order_restocks_cause_check check (cause in ('refund', 'cancel'))`.execute(
    db,
  );
  await sql`drop index orders_replaces_return`.execute(db);
  await sql`alter table orders drop column replaces_return_id`.execute(db);
  await sql`drop table return_lines`.execute(db);
  await sql`drop table returns`.execute(db);
  await sql`alter table orders drop column access_key`.execute(db);
}
