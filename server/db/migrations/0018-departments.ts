// Migration 0018: departments (two levels) and which products are in them, with the listing indexes department pages
// read.

import { sql, type Kysely } from "kysely";

/**
 * Departments: a tree of at most two levels (Computers > Monitors) that products belong to, one or more each.
 * Start-up fills an empty tree (server/departments/department-seed.ts); this only makes the tables and the indexes
 * the listing pages read by (docs/decisions/020-departments-and-listings.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table departments (
      id uuid primary key default gen_random_uuid(),
      parent_id uuid references departments (id) on delete restrict,
      name text not null check (length(name) between 1 and 80),
      slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 80),
      description text not null default '',
      position integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (parent_id is null or parent_id <> id)
    )`.execute(db);
  await sql`create index departments_parent on departments (parent_id, position)`.execute(db);

  // A department's products are found by its id first (the primary key's order); a product's departments by the other index.
  await sql`
    create table product_departments (
      department_id uuid not null references departments (id) on delete restrict,
      product_id text not null references products (id) on delete cascade,
      primary key (department_id, product_id)
    )`.execute(db);
  await sql`create index product_departments_product on product_departments (product_id, department_id)`.execute(db);

  // What a listing filters and sorts by, among the active products: an index-only scan answers a department's
  // filtered count and its page from these (joined by id), without reading the products' rows.
  await sql`create index products_listing on products (id) include (price_cents, rating, featured_position, created_at) where status = 'active'`.execute(
    db,
  );
  await sql`create index products_active_price on products (price_cents, id) where status = 'active'`.execute(db);
  await sql`create index products_active_newest on products (created_at desc, id) where status = 'active'`.execute(db);

  // Cached pages (header menu, listings) follow the tree and the memberships as they follow the products.
  await sql`
    create trigger departments_bump_catalogue_version after insert or update or delete or truncate on departments
    for each statement execute function bump_catalogue_version()`.execute(db);
  await sql`
    create trigger product_departments_bump_catalogue_version after insert or update or delete or truncate on product_departments
    for each statement execute function bump_catalogue_version()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index products_active_newest`.execute(db);
  await sql`drop index products_active_price`.execute(db);
  await sql`drop index products_listing`.execute(db);
  await sql`drop table product_departments`.execute(db);
  await sql`drop table departments`.execute(db);
}
