// Migration 0024: the product CSV import's runs and the pictures it fetches afterwards, and a stock movement's import.

import { sql, type Kysely } from "kysely";

/**
 * Products in and out as CSV (Shopify's layouts). A product keeps the vendor, type and tags a CSV brings (written
 * back on export), a stock change made by an import is a ledger row of its own reason, and each import is kept with
 * its counts and the pictures it asked for, which are fetched after it commits (pending until then; a failure is kept
 * with its reason for the import's report). A picture stored from an address is remembered by it, so importing the
 * same file again fetches nothing twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table products add column vendor text not null default '' check (length(vendor) <= 255)`.execute(db);
  await sql`alter table products add column product_type text not null default '' check (length(product_type) <= 255)`.execute(
    db,
  );
  await sql`alter table products add column tags jsonb not null default '[]'`.execute(db);

  await sql`alter table stock_ledger drop constraint stock_ledger_reason_check`.execute(db);
  await sql`alter table stock_ledger add constraint stock_ledger_reason_check check (reason in ('edit', 'sale', 'reserve', 'release', 'restock', 'import'))`.execute(
    db,
  );

  await sql`
    create table product_imports (
      id uuid primary key default gen_random_uuid(),
      operator_id uuid references users (id) on delete set null,
      operator_email text not null,
      file_name text not null,
      rows integer not null,
      created integer not null,
      updated integer not null,
      unchanged integer not null,
      ignored_columns jsonb not null default '[]',
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table product_import_pictures (
      import_id uuid not null references product_imports (id) on delete cascade,
      product_id text not null references products (id) on delete cascade,
      url text not null,
      line integer not null,
      status text not null default 'pending' check (status in ('pending', 'stored', 'failed')),
      reason text,
      replaces text not null,
      stored_as text,
      claimed_until timestamptz,
      updated_at timestamptz not null default now(),
      primary key (import_id, product_id)
    )`.execute(db);
  await sql`create index product_import_pictures_pending on product_import_pictures (claimed_until nulls first) where status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table product_import_pictures`.execute(db);
  await sql`drop table product_imports`.execute(db);
  await sql`delete from stock_ledger where reason = 'import'`.execute(db);
  await sql`alter table stock_ledger drop constraint stock_ledger_reason_check`.execute(db);
  await sql`alter table stock_ledger add constraint stock_ledger_reason_check check (reason in ('edit', 'sale', 'reserve', 'release', 'restock'))`.execute(
    db,
  );
  await sql`alter table products drop column tags`.execute(db);
  await sql`alter table products drop column product_type`.execute(db);
  await sql`alter table products drop column vendor`.execute(db);
}
