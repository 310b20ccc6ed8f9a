// Migration 0026: what listings filter by, kept on products by triggers: limited stock and department ids, with the
// indexes that read them.

import { sql, type Kysely } from "kysely";

/**
 * Listing pages hide products that are out of stock (unless a shopper includes them) and filter by option values.
 *
 * Whether a product is out of stock depends on live reservations, so it is worked out when read; but only a product
 * whose every variant is tracked without back-orders can ever be out of stock. `products.limited_stock` says so, kept
 * by a trigger on product_variants (any writer: the console, an import), so that a listing asks about reservations
 * only for those products and the rest cost one column read. Stock movements do not touch the flag.
 *
 * A department's listing filters by placement: `products.department_ids` carries each product's departments (kept by
 * a trigger on product_departments, which stays the one written), so that the filter is one indexed condition on
 * products beside the price's, instead of a join over every placement in the department.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table products add column limited_stock boolean not null default false`.execute(db);
  await sql`
    create function product_limited_stock(product text) returns boolean language sql stable as $$
      select exists (select 1 from product_variants where product_id = product)
         and not exists (select 1 from product_variants where product_id = product and (not tracks_stock or continue_selling))
    $$`.execute(db);
  await sql`update products set limited_stock = product_limited_stock(id)`.execute(db);
  await sql`
    create function refresh_limited_stock() returns trigger language plpgsql as $$
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
  await sql`
    create trigger product_variants_limited_stock
    after insert or delete or update of tracks_stock, continue_selling, product_id on product_variants
    for each row execute function refresh_limited_stock()`.execute(db);
  await sql`alter table products add column department_ids uuid[] not null default '{}'`.execute(db);
  await sql`
    update products p set department_ids = placed.ids
    from (select product_id, array_agg(department_id order by department_id) as ids from product_departments group by product_id) placed
    where placed.product_id = p.id`.execute(db);
  // Once per statement, over the rows it touched: an import writes placements by the thousand.
  await sql`
    create function refresh_department_ids() returns trigger language plpgsql as $$
    begin
      if tg_op in ('INSERT', 'UPDATE') then
        update products p set department_ids = coalesce((select array_agg(pd.department_id order by pd.department_id) from product_departments pd where pd.product_id = p.id), '{}')
        where p.id in (select product_id from added);
      end if;
      if tg_op in ('DELETE', 'UPDATE') then
        update products p set department_ids = coalesce((select array_agg(pd.department_id order by pd.department_id) from product_departments pd where pd.product_id = p.id), '{}')
        where p.id in (select product_id from removed);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger product_departments_added after insert on product_departments
    referencing new table as added for each statement execute function refresh_department_ids()`.execute(db);
  await sql`
    create trigger product_departments_removed after delete on product_departments
    referencing old table as removed for each statement execute function refresh_department_ids()`.execute(db);
  await sql`
    create trigger product_departments_moved after update on product_departments
    referencing old table as removed new table as added for each statement execute function refresh_department_ids()`.execute(
    db,
  );
  await sql`create index products_active_departments on products using gin (department_ids) where status = 'active'`.execute(
    db,
  );
  // The option filters look a product's options up by product and name.
  await sql`create index product_options_name on product_options (name, product_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists product_options_name`.execute(db);
  await sql`drop index if exists products_active_departments`.execute(db);
  for (const trigger of ["product_departments_added", "product_departments_removed", "product_departments_moved"]) {
    await sql`drop trigger if exists ${sql.raw(trigger)} on product_departments`.execute(db);
  }
  await sql`drop function if exists refresh_department_ids()`.execute(db);
  await sql`alter table products drop column if exists department_ids`.execute(db);
  await sql`drop trigger if exists product_variants_limited_stock on product_variants`.execute(db);
  await sql`drop function if exists refresh_limited_stock()`.execute(db);
  await sql`drop function if exists product_limited_stock(text)`.execute(db);
  await sql`alter table products drop column if exists limited_stock`.execute(db);
}
