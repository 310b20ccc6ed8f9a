// Migration 0031: ratings shown unrounded with their count, and a variant's own "Low stock at".

import { sql, type Kysely } from "kysely";

/**
 * Stars that someone gave. A product's catalogue rating becomes optional and keeps its decimals, with the count of
 * ratings it stands for (an import's Shopify rating and rating count); the ratings the console and the import used to
 * make up (five stars for every new product) are cleared, the specification's six keep theirs. Listings sort a
 * product without stars last. A variant gets its own "Low stock at", the quantity at or under which the console
 * counts it low.
 */
const SPECIFICATION_PRODUCTS = ["12321341", "49538094", "4903850", "23445930", "3254354345", "90829332"];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists products_listing`.execute(db);
  await sql`drop index if exists products_shown_rating`.execute(db);
  await sql`alter table products drop column shown_rating`.execute(db);
  await sql`
    alter table products
      alter column rating type double precision,
      alter column rating drop not null,
      add column rating_count integer check (rating_count > 0),
      add constraint products_rating_count_has_rating check (rating_count is null or rating is not null)`.execute(db);
  await sql`
    update products set rating = null
    where id not in (${sql.join(SPECIFICATION_PRODUCTS)})`.execute(db);
  await sql`
    alter table products
      add column shown_rating double precision
        generated always as (case when review_count > 0 then review_average else rating end) stored`.execute(db);
  await sql`create index products_shown_rating on products (shown_rating desc nulls last, id) where status = 'active'`.execute(
    db,
  );
  await sql`
    create index products_listing on products (price_cents, id)
    include (department_ids, limited_stock, shown_rating, featured_position, created_at)
    where status = 'active'`.execute(db);
  await sql`
    alter table product_variants
      add column low_stock_at integer not null default 5 check (low_stock_at between 0 and 1000000)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table product_variants drop column low_stock_at`.execute(db);
  await sql`drop index if exists products_listing`.execute(db);
  await sql`drop index if exists products_shown_rating`.execute(db);
  await sql`alter table products drop column shown_rating`.execute(db);
  await sql`
    alter table products
      drop constraint products_rating_count_has_rating,
      drop column rating_count`.execute(db);
  await sql`update products set rating = 5 where rating is null`.execute(db);
  await sql`
    alter table products
      alter column rating type smallint using round(rating)::smallint,
      alter column rating set not null`.execute(db);
  await sql`
    alter table products
      add column shown_rating double precision
        generated always as (case when review_count > 0 then review_average else rating end) stored`.execute(db);
  await sql`create index products_shown_rating on products (shown_rating desc, id) where status = 'active'`.execute(db);
  await sql`
    create index products_listing on products (price_cents, id)
    include (department_ids, limited_stock, shown_rating, featured_position, created_at)
    where status = 'active'`.execute(db);
}
