// Migration 0016: product options and variants with their stock, reservations and the stock ledger; basket lines and
// orders name a variant.

import { sql, type Kysely } from "kysely";

/**
 * Options, variants and stock. A product has 0 to 3 options (a name and ordered values) and one variant per
 * combination that exists; a product without options has exactly one, its default variant, whose id is the product's
 * own (so every existing basket line and order keeps naming it). Every product gets its default variant here, and every
 * product inserted later gets one from a trigger, so no product is ever without a variant. The seeded products' default
 * variants do not track stock: nothing changes for them until an operator sets a stock.
 *
 * Stock is written by server/inventory/ only: a variant's on-hand quantity, the reservations payments hold against it
 * (by the hold's key: a payment intent id, or a key of its own while the intent is being created), and a ledger row for
 * every change to a quantity. Basket lines name a variant; the line of a product is its default variant's line.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table product_options (
      product_id text not null references products (id) on delete cascade,
      position smallint not null check (position between 1 and 3),
      name text not null check (length(name) between 1 and 60),
      "values" jsonb not null,
      primary key (product_id, position)
    )`.execute(db);
  await sql`
    create table product_variants (
      id text primary key,
      product_id text not null references products (id) on delete cascade,
      position integer not null default 0,
      option_values jsonb not null default '[]',
      sku text,
      price_cents integer not null check (price_cents >= 0),
      compare_at_cents integer check (compare_at_cents >= 0),
      weight_grams integer not null default 0 check (weight_grams >= 0),
      charge_tax boolean not null default true,
      image text,
      image_width integer,
      image_height integer,
      image_srcset text,
      tracks_stock boolean not null default false,
      on_hand integer not null default 0,
      continue_selling boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index product_variants_sku on product_variants (sku) where sku is not null`.execute(db);
  await sql`create index product_variants_product on product_variants (product_id, position, id)`.execute(db);
  await sql`
    insert into product_variants (id, product_id, price_cents)
    select id, id, price_cents from products`.execute(db);
  // A product inserted by any path (the seed, the console, an import) gets its default variant in the same statement.
  await sql`
    create function add_default_variant() returns trigger language plpgsql as $$
    begin
      insert into product_variants (id, product_id, price_cents) values (new.id, new.id, new.price_cents) on conflict (id) do nothing;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger products_add_default_variant after insert on products
    for each row execute function add_default_variant()`.execute(db);
  // A product without options is priced by its one variant: a change of the product's price is that variant's.
  await sql`
    create function price_default_variant() returns trigger language plpgsql as $$
    begin
      update product_variants set price_cents = new.price_cents, updated_at = now()
      where product_id = new.id and option_values = '[]'::jsonb and price_cents <> new.price_cents
        and not exists (select 1 from product_options where product_id = new.id);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger products_price_default_variant after update of price_cents on products
    for each row execute function price_default_variant()`.execute(db);

  await sql`
    create table stock_reservations (
      id bigint generated always as identity primary key,
      hold text not null,
      variant_id text not null references product_variants (id) on delete cascade,
      quantity integer not null check (quantity > 0),
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index stock_reservations_variant on stock_reservations (variant_id, expires_at)`.execute(db);
  await sql`create index stock_reservations_hold on stock_reservations (hold)`.execute(db);
  await sql`create index stock_reservations_expiry on stock_reservations (expires_at)`.execute(db);
  await sql`
    create table stock_ledger (
      id bigint generated always as identity primary key,
      variant_id text not null references product_variants (id) on delete cascade,
      product_id text not null,
      reason text not null check (reason in ('edit', 'sale', 'reserve', 'release', 'restock')),
      counts text not null check (counts in ('on_hand', 'available')),
      quantity_before integer not null,
      quantity_after integer not null,
      actor text not null,
      reference text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index stock_ledger_product on stock_ledger (product_id, id desc)`.execute(db);

  // Basket lines name a variant: the existing ones their product's default variant.
  await sql`alter table basket_items add column variant_id text`.execute(db);
  await sql`update basket_items set variant_id = product_id`.execute(db);
  await sql`
    delete from basket_items where not exists (select 1 from product_variants where product_variants.id = basket_items.variant_id)`.execute(
    db,
  );
  await sql`alter table basket_items alter column variant_id set not null`.execute(db);
  await db.schema
    .createIndex("basket_items_basket_variant")
    .on("basket_items")
    .columns(["basket_id", "variant_id"])
    .unique()
    .execute();
  await db.schema.dropIndex("basket_items_basket_product").execute();

  // An order paid after its reservation lapsed, for stock that had gone meanwhile: the operator's to settle.
  await sql`alter table orders add column oversold boolean not null default false`.execute(db);
  await sql`create index orders_oversold on orders (paid_at desc) where oversold`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A later migration (0023) replaced it with orders_oversold_status, which goes with the column.
  await sql`drop index if exists orders_oversold`.execute(db);
  await sql`alter table orders drop column oversold`.execute(db);
  await sql`delete from basket_items where variant_id <> product_id`.execute(db);
  await db.schema
    .createIndex("basket_items_basket_product")
    .on("basket_items")
    .columns(["basket_id", "product_id"])
    .unique()
    .execute();
  await db.schema.dropIndex("basket_items_basket_variant").execute();
  await sql`alter table basket_items drop column variant_id`.execute(db);
  await sql`drop table stock_ledger`.execute(db);
  await sql`drop table stock_reservations`.execute(db);
  await sql`drop trigger products_price_default_variant on products`.execute(db);
  await sql`drop function price_default_variant()`.execute(db);
  await sql`drop trigger products_add_default_variant on products`.execute(db);
  await sql`drop function add_default_variant()`.execute(db);
  await sql`drop table product_variants`.execute(db);
  await sql`drop table product_options`.execute(db);
}
