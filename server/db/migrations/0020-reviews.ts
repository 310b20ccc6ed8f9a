// Migration 0020: reviews and review requests with the products' figures kept by trigger, and e-mail opt-outs with
// their unsubscribe tokens.

import { sql, type Kysely } from "kysely";

/**
 * Customer reviews, one per account and product, and the product's figures from them (review_count,
 * review_average) kept on products by a trigger in the transaction of every write to reviews: the review service's
 * own writes and the cascade of an account's deletion alike, so the figures never drift from the rows. Writing
 * products moves the catalogue's version, so guests' kept pages show a new review. The e-mail outbox gains headers
 * (List-Unsubscribe), and review requests are recorded once per order, with the addresses that opted out.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table products
      add column review_count integer not null default 0 check (review_count >= 0),
      add column review_average double precision check (review_average between 1 and 5),
      add column shown_rating double precision generated always as (case when review_count > 0 then review_average else rating end) stored`.execute(
    db,
  );
  await sql`create index products_shown_rating on products (shown_rating desc, id) where status = 'active'`.execute(db);
  // Listings filter and sort by the rating shoppers see: the covering index carries it instead of the catalogue's.
  await sql`drop index products_listing`.execute(db);
  await sql`create index products_listing on products (id) include (price_cents, shown_rating, featured_position, created_at) where status = 'active'`.execute(
    db,
  );
  await sql`
    create table reviews (
      id uuid primary key default gen_random_uuid(),
      product_id text not null references products (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      order_id text references orders (id) on delete set null,
      rating smallint not null check (rating between 1 and 5),
      headline text not null check (length(headline) between 1 and 150),
      body text not null check (length(body) <= 5000),
      reviewer_name text not null check (length(reviewer_name) between 1 and 80),
      is_visible boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (user_id, product_id)
    )`.execute(db);
  await db.schema
    .createIndex("reviews_product_newest")
    .on("reviews")
    .columns(["product_id", "created_at desc", "id desc"])
    .execute();
  await db.schema.createIndex("reviews_newest").on("reviews").columns(["created_at desc", "id desc"]).execute();
  await sql`
    create function refresh_review_figures(product text) returns void language sql as $$
      update products set
        review_count = figures.count,
        review_average = figures.average
      from (
        select count(*)::int as count, avg(rating)::double precision as average
        from reviews where product_id = product and is_visible
      ) as figures
      where products.id = product
        and (products.review_count, products.review_average) is distinct from (figures.count, figures.average)
    $$`.execute(db);
  await sql`
    create function reviews_refresh_product() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform refresh_review_figures(old.product_id); end if;
      if tg_op in ('INSERT', 'UPDATE') and (tg_op = 'INSERT' or new.product_id <> old.product_id) then
        perform refresh_review_figures(new.product_id);
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger reviews_refresh_product after insert or update or delete on reviews
    for each row execute function reviews_refresh_product()`.execute(db);

  await sql`alter table email_outbox add column headers jsonb`.execute(db);
  await sql`
    create table review_requests (
      order_id text primary key references orders (id) on delete cascade,
      outcome text not null check (outcome in ('sent', 'skipped')),
      decided_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table email_opt_outs (
      email text not null,
      purpose text not null check (purpose in ('review-requests')),
      created_at timestamptz not null default now(),
      primary key (email, purpose)
    )`.execute(db);
  await sql`
    create table unsubscribe_tokens (
      token_hash text primary key,
      email text not null,
      purpose text not null check (purpose in ('review-requests')),
      created_at timestamptz not null default now()
    )`.execute(db);
  await db.schema.createIndex("unsubscribe_tokens_email").on("unsubscribe_tokens").column("email").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table unsubscribe_tokens`.execute(db);
  await sql`drop table email_opt_outs`.execute(db);
  await sql`drop table review_requests`.execute(db);
  await sql`alter table email_outbox drop column headers`.execute(db);
  await sql`drop trigger reviews_refresh_product on reviews`.execute(db);
  await sql`drop function reviews_refresh_product()`.execute(db);
  await sql`drop function refresh_review_figures(text)`.execute(db);
  await sql`drop table reviews`.execute(db);
  await sql`drop index products_shown_rating`.execute(db);
  await sql`drop index products_listing`.execute(db);
  await sql`create index products_listing on products (id) include (price_cents, rating, featured_position, created_at) where status = 'active'`.execute(
    db,
  );
  await sql`alter table products drop column shown_rating, drop column review_count, drop column review_average`.execute(
    db,
  );
}
