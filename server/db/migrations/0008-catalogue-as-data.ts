// Migration 0008: the catalogue becomes the operator's data (slugs, descriptions, status, featured positions) with a
// catalogue version that moves on every change.

import { sql, type Kysely } from "kysely";
import { catalogue } from "#server/catalogue/catalogue-data";

/**
 * The catalogue becomes data an operator edits: slugs for product pages (and the old ones, for 301s), descriptions,
 * archiving, a featured position for the home page, full-text and trigram search, and a version row that every write
 * to products counts up, so each instance's read cache can tell cheaply that it is stale.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Trigram similarity (typo tolerance). PGlite loads it in client.ts; a managed PostgreSQL must allow it.
  await sql`create extension if not exists pg_trgm`.execute(db);

  await sql`
    alter table products
      add column slug text,
      add column description text not null default '',
      add column status text not null default 'active' check (status in ('active', 'archived')),
      add column featured_position integer,
      add column updated_at timestamptz not null default now()`.execute(db);
  // Rows an older shop already holds: the shop's six get their slugs and descriptions, anything else a slug of its own.
  for (const entry of catalogue) {
    await sql`update products set slug = ${entry.slug}, description = ${entry.description} where id = ${entry.id}`.execute(
      db,
    );
  }
  await sql`
    update products
    set slug = trim(both '-' from regexp_replace(lower(title), '[^a-z0-9]+', '-', 'g')) || '-' || lower(regexp_replace(id, '[^a-zA-Z0-9]+', '', 'g'))
    where slug is null`.execute(db);
  await sql`update products set featured_position = position`.execute(db);
  await sql`
    alter table products
      alter column slug set not null,
      add constraint products_slug_key unique (slug),
      add constraint products_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 120),
      drop column position`.execute(db);
  await sql`create index products_featured on products (featured_position) where featured_position is not null and status = 'active'`.execute(
    db,
  );

  // Title words weigh more than description words in the ranking.
  await sql`
    alter table products add column search_document tsvector generated always as (
      setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B')
    ) stored`.execute(db);
  await sql`create index products_search_document on products using gin (search_document)`.execute(db);
  await sql`create index products_title_trigrams on products using gin (title gin_trgm_ops)`.execute(db);

  // A slug a product no longer has still leads to it (301). Taking a slug back removes it from here.
  await sql`
    create table product_slug_history (
      slug text primary key,
      product_id text not null references products (id) on delete cascade,
      retired_at timestamptz not null default now()
    )`.execute(db);

  await sql`create table catalogue_version (singleton boolean primary key default true check (singleton), version bigint not null)`.execute(
    db,
  );
  await sql`insert into catalogue_version (version) values (1)`.execute(db);
  // Counted up by the database itself, so that every write (the shop's, a script's, an operator's psql) is seen.
  await sql`
    create function bump_catalogue_version() returns trigger language plpgsql as $$
    begin
      update catalogue_version set version = version + 1;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger products_bump_catalogue_version after insert or update or delete or truncate on products
    for each statement execute function bump_catalogue_version()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger products_bump_catalogue_version on products`.execute(db);
  await sql`drop function bump_catalogue_version()`.execute(db);
  await sql`drop table catalogue_version`.execute(db);
  await sql`drop table product_slug_history`.execute(db);
  await sql`alter table products add column position integer`.execute(db);
  await sql`update products set position = coalesce(featured_position, 1000000)`.execute(db);
  await sql`
    alter table products
      alter column position set not null,
      drop column search_document,
      drop column slug,
      drop column description,
      drop column status,
      drop column featured_position,
      drop column updated_at`.execute(db);
}
