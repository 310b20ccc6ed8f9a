import { sql, type Kysely } from "kysely";

/**
 * Listing pages hide products that are out of stock (unless a shopper includes them) and filter by option values.
 *
 * Whether a product is out of stock depends on live reservations, so it is worked out when read; but only a product
 * whose every variant is tracked without back-orders can ever be out of stock. `products.limited_stock` says so, kept
 * by a trigger on product_variants (any writer: the console, an import), so that a listing asks about reservations
 * only for those products and the rest cost one column read. Stock movements do not touch the flag.
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
  // The option filters look a product's options up by product and name.
  await sql`create index product_options_name on product_options (name, product_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists product_options_name`.execute(db);
  await sql`drop trigger if exists product_variants_limited_stock on product_variants`.execute(db);
  await sql`drop function if exists refresh_limited_stock()`.execute(db);
  await sql`drop function if exists product_limited_stock(text)`.execute(db);
  await sql`alter table products drop column if exists limited_stock`.execute(db);
}
