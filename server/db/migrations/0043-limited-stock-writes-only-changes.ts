// Migration 0043: the limited-stock flag's trigger writes products only when the flag changes.

import { sql, type Kysely } from "kysely";

/**
 * Migration 0026's trigger runs for every write that names a variant's tracking columns, as every stock count does,
 * and ran its `update products ... where limited_stock is distinct from ...` twice each time, even when no row
 * matched; a statement-level trigger on products (migration 0008) moves the catalogue's version once per statement,
 * rows or none. So every count moved the version twice without changing anything a guest reads, and every instance
 * threw away its cached pages and rates. Now the update runs only for a product whose flag is wrong.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function refresh_limited_stock() returns trigger language plpgsql as $$
    declare
      product text;
    begin
      for product in
        select distinct changed.id from (values (case when tg_op <> 'INSERT' then old.product_id end),
                                                (case when tg_op <> 'DELETE' then new.product_id end)) as changed (id)
        where changed.id is not null
      loop
        if exists (select 1 from products p where p.id = product and p.limited_stock is distinct from product_limited_stock(product)) then
          update products set limited_stock = product_limited_stock(product) where id = product;
        end if;
      end loop;
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function refresh_limited_stock() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update products set limited_stock = product_limited_stock(old.product_id)
        where id = old.product_id and limited_stock is distinct from product_limited_stock(old.product_id);
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        update products set limited_stock = product_limited_stock(new.product_id)
        where id = new.product_id and limited_stock is distinct from product_limited_stock(new.product_id);
      end if;
      return null;
    end $$`.execute(db);
}
