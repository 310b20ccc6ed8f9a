// Migration 0025: stock alerts name a variant rather than a product.

import { sql, type Kysely } from "kysely";

/**
 * "Notify me when available" is asked for on one variant (a size, a colour), and an alert is used when that variant
 * comes back, so stock_alerts names the variant instead of the product. An alert kept by product before this (none
 * could be asked for from a page) names the product's default variant, or its first one when that is gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table stock_alerts add column variant_id text references product_variants (id) on delete cascade`.execute(
    db,
  );
  await sql`
    update stock_alerts a set variant_id = coalesce(
      (select v.id from product_variants v where v.id = a.product_id),
      (select v.id from product_variants v where v.product_id = a.product_id order by v.position, v.id limit 1))`.execute(
    db,
  );
  await sql`delete from stock_alerts where variant_id is null`.execute(db);
  await sql`alter table stock_alerts alter column variant_id set not null`.execute(db);
  await sql`drop index stock_alerts_once`.execute(db);
  await sql`drop index stock_alerts_waiting`.execute(db);
  await sql`alter table stock_alerts drop column product_id`.execute(db);
  await sql`create unique index stock_alerts_once on stock_alerts (variant_id, email) where notified_at is null`.execute(
    db,
  );
  await sql`create index stock_alerts_waiting on stock_alerts (variant_id) where confirmed_at is not null and notified_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table stock_alerts add column product_id text references products (id) on delete cascade`.execute(db);
  await sql`update stock_alerts a set product_id = (select v.product_id from product_variants v where v.id = a.variant_id)`.execute(
    db,
  );
  // One waiting alert per address and product, as the product's index requires: the oldest is kept.
  await sql`
    delete from stock_alerts a where a.notified_at is null and exists (
      select 1 from stock_alerts b
      where b.product_id = a.product_id and b.email = a.email and b.notified_at is null and (b.created_at, b.id) < (a.created_at, a.id))`.execute(
    db,
  );
  await sql`alter table stock_alerts alter column product_id set not null`.execute(db);
  await sql`drop index stock_alerts_once`.execute(db);
  await sql`drop index stock_alerts_waiting`.execute(db);
  await sql`alter table stock_alerts drop column variant_id`.execute(db);
  await sql`create unique index stock_alerts_once on stock_alerts (product_id, email) where notified_at is null`.execute(
    db,
  );
  await sql`create index stock_alerts_waiting on stock_alerts (product_id) where confirmed_at is not null and notified_at is null`.execute(
    db,
  );
}
