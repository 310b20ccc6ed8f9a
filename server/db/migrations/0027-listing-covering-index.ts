// Migration 0027: the listing indexes cover what a listing page reads, so a page is picked from the index alone.

import { sql, type Kysely } from "kysely";

/**
 * A listing finds its products from one index alone: the active products by price, carrying every other column a
 * listing filters or sorts on (departments, whether stock is limited, rating, featured position, age). A filtered page
 * then reads a few dozen index pages instead of visiting each matching product's row, which a price band spreads over
 * most of the table; only the page's own products are read from the table. It replaces the price index, and the
 * id-ordered listing index that predates the department and stock columns and so could no longer answer alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists products_active_price`.execute(db);
  await sql`drop index if exists products_listing`.execute(db);
  await sql`
    create index products_listing on products (price_cents, id)
    include (department_ids, limited_stock, shown_rating, featured_position, created_at)
    where status = 'active'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists products_listing`.execute(db);
  await sql`create index products_active_price on products (price_cents, id) where status = 'active'`.execute(db);
  await sql`create index products_listing on products (id) include (price_cents, shown_rating, featured_position, created_at) where status = 'active'`.execute(
    db,
  );
}
