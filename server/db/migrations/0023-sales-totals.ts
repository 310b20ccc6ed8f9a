// Migration 0023: the sales dashboard's running totals, kept by triggers on orders and refunds in their own
// transaction.

import { sql, type Kysely } from "kysely";

/**
 * The sales dashboard's running totals, per UTC quarter hour and per mode (test or live), kept by triggers in the
 * transaction of every order and every refund, so they never drift from the rows whoever writes them (the checkout's
 * order; the console's or the webhook's refund), and a dashboard over a million orders sums a few thousand rows:
 *
 * - sales_totals: orders, items sold, gross (items before discounts), discounts, shipping and tax, in the quarter
 *   hour the order was paid; refunds in the quarter hour the refund was made.
 * - product_sales_totals: the same per product; a refund is shared across the order's lines in proportion to what
 *   each line was paid after its discount (the cents left over by largest remainder, so the shares add up to it).
 * - product_sales_by_day: the same again per UTC day, so that a period's best sellers sum a row per product and day
 *   inside it, and quarter hours only at its two ends (a month: a few thousand rows, not a hundred thousand).
 *
 * A quarter hour rather than an hour: a day in Kolkata (UTC+5:30), Kathmandu (+5:45), Adelaide (+9:30) or St John's
 * (-3:30) starts in the middle of a UTC hour, and every time zone in use starts its days on a UTC quarter hour, so
 * any SHOP_TIME_ZONE sums whole rows (docs/decisions/022-sales-dashboard.md). Orders and refunds already recorded are
 * added here, once. And a payment held for review that the console refunds becomes `refunded`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function sales_quarter_hour(at timestamptz) returns timestamptz language sql immutable parallel safe as $$
      select date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00')
    $$`.execute(db);
  await sql`
    create table sales_totals (
      livemode boolean not null,
      starts_at timestamptz not null,
      orders integer not null default 0,
      items_sold integer not null default 0,
      gross_cents bigint not null default 0,
      discount_cents bigint not null default 0,
      refund_cents bigint not null default 0,
      shipping_cents bigint not null default 0,
      tax_cents bigint not null default 0,
      primary key (livemode, starts_at)
    )`.execute(db);
  await sql`
    create table product_sales_totals (
      livemode boolean not null,
      starts_at timestamptz not null,
      product_id text not null,
      quantity integer not null default 0,
      gross_cents bigint not null default 0,
      discount_cents bigint not null default 0,
      refund_cents bigint not null default 0,
      -- The title on the order's line: shown when the product has since left the catalogue.
      title text not null,
      primary key (livemode, starts_at, product_id)
    )`.execute(db);

  await sql`
    create table product_sales_by_day (
      livemode boolean not null,
      day date not null,
      product_id text not null,
      quantity integer not null default 0,
      gross_cents bigint not null default 0,
      discount_cents bigint not null default 0,
      refund_cents bigint not null default 0,
      title text not null,
      primary key (livemode, day, product_id)
    )`.execute(db);

  // An order's lines as sold: the items snapshot beside the pricing's lines (the same order, one for one). Orders
  // from before delivery options and tax have no pricing: a line then cost its price times its quantity.
  await sql`
    create function order_sales_lines(sold orders)
    returns table (line integer, product_id text, title text, quantity integer, gross_cents bigint, discount_cents bigint)
    language sql stable as $$
      select item.position::int,
             item.value->>'productId',
             item.value->>'title',
             coalesce((item.value->>'quantity')::int, 1),
             coalesce((priced.value->>'amountCents')::bigint, (item.value->>'priceCents')::bigint * coalesce((item.value->>'quantity')::int, 1)),
             coalesce((priced.value->>'discountCents')::bigint, 0)
      from jsonb_array_elements(sold.items) with ordinality as item (value, position)
      left join jsonb_array_elements(case when jsonb_typeof(sold.pricing->'lines') = 'array' then sold.pricing->'lines' else '[]'::jsonb end)
        with ordinality as priced (value, position) on priced.position = item.position
    $$`.execute(db);

  await sql`
    create function add_order_to_sales_totals(sold orders) returns void language plpgsql as $$
    declare
      mode boolean := coalesce(sold.livemode, false);
      quarter timestamptz := sales_quarter_hour(sold.paid_at);
    begin
      insert into sales_totals as totals (livemode, starts_at, orders, items_sold, gross_cents, discount_cents, shipping_cents, tax_cents)
      select mode, quarter, 1, coalesce(sum(lines.quantity), 0),
             coalesce((sold.pricing->>'itemsCents')::bigint, sum(lines.gross_cents), 0),
             coalesce((sold.pricing->>'discountCents')::bigint, 0),
             coalesce((sold.pricing->>'shippingCents')::bigint, 0),
             coalesce((sold.pricing->>'taxCents')::bigint, 0)
      from order_sales_lines(sold) as lines
      on conflict (livemode, starts_at) do update set
        orders = totals.orders + excluded.orders,
        items_sold = totals.items_sold + excluded.items_sold,
        gross_cents = totals.gross_cents + excluded.gross_cents,
        discount_cents = totals.discount_cents + excluded.discount_cents,
        shipping_cents = totals.shipping_cents + excluded.shipping_cents,
        tax_cents = totals.tax_cents + excluded.tax_cents;

      insert into product_sales_totals as totals (livemode, starts_at, product_id, quantity, gross_cents, discount_cents, title)
      select mode, quarter, lines.product_id, sum(lines.quantity), sum(lines.gross_cents), sum(lines.discount_cents), min(lines.title)
      from order_sales_lines(sold) as lines
      group by lines.product_id
      on conflict (livemode, starts_at, product_id) do update set
        quantity = totals.quantity + excluded.quantity,
        gross_cents = totals.gross_cents + excluded.gross_cents,
        discount_cents = totals.discount_cents + excluded.discount_cents,
        title = excluded.title;

      insert into product_sales_by_day as totals (livemode, day, product_id, quantity, gross_cents, discount_cents, title)
      select mode, (quarter at time zone 'UTC')::date, lines.product_id, sum(lines.quantity), sum(lines.gross_cents), sum(lines.discount_cents), min(lines.title)
      from order_sales_lines(sold) as lines
      group by lines.product_id
      on conflict (livemode, day, product_id) do update set
        quantity = totals.quantity + excluded.quantity,
        gross_cents = totals.gross_cents + excluded.gross_cents,
        discount_cents = totals.discount_cents + excluded.discount_cents,
        title = excluded.title;
    end
    $$`.execute(db);

  // Shares in proportion to each line's amount after its discount (by quantity when every line was free), each
  // rounded down, then the cents left over one each to the largest remainders (the earlier line on a tie).
  await sql`
    create function add_refund_to_sales_totals(made order_refunds) returns void language plpgsql as $$
    declare
      sold orders;
      mode boolean;
      share record;
      quarter timestamptz := sales_quarter_hour(made.created_at);
    begin
      select * into sold from orders where id = made.order_id;
      if not found then return; end if;
      mode := coalesce(sold.livemode, false);

      insert into sales_totals as totals (livemode, starts_at, refund_cents) values (mode, quarter, made.amount_cents)
      on conflict (livemode, starts_at) do update set refund_cents = totals.refund_cents + excluded.refund_cents;

      for share in
        select shares.product_id, sum(shares.share)::bigint as cents, min(shares.title) as title
        from (
          select ranked.product_id, ranked.title,
                 ranked.floor_share + case when ranked.place <= made.amount_cents - ranked.floors then 1 else 0 end as share
          from (
            select weighed.*,
                   (sum(weighed.floor_share) over ())::bigint as floors,
                   row_number() over (order by weighed.remainder desc, weighed.line) as place
            from (
              select lines.line, lines.product_id, lines.title,
                     (made.amount_cents * lines.weight) / lines.total_weight as floor_share,
                     (made.amount_cents * lines.weight) % lines.total_weight as remainder
              from (
                select base.line, base.product_id, base.title,
                       case when sum(base.paid) over () > 0 then base.paid else base.quantity end as weight,
                       (case when sum(base.paid) over () > 0 then sum(base.paid) over () else sum(base.quantity) over () end)::bigint as total_weight
                from (
                  select line, product_id, title, quantity, greatest(gross_cents - discount_cents, 0) as paid
                  from order_sales_lines(sold)
                ) as base
              ) as lines
              where lines.total_weight > 0
            ) as weighed
          ) as ranked
        ) as shares
        group by shares.product_id
      loop
        insert into product_sales_totals as totals (livemode, starts_at, product_id, refund_cents, title)
        values (mode, quarter, share.product_id, share.cents, share.title)
        on conflict (livemode, starts_at, product_id) do update set refund_cents = totals.refund_cents + excluded.refund_cents;
        insert into product_sales_by_day as totals (livemode, day, product_id, refund_cents, title)
        values (mode, (quarter at time zone 'UTC')::date, share.product_id, share.cents, share.title)
        on conflict (livemode, day, product_id) do update set refund_cents = totals.refund_cents + excluded.refund_cents;
      end loop;
    end
    $$`.execute(db);

  await sql`
    create function orders_add_to_sales_totals() returns trigger language plpgsql as $$
    begin
      perform add_order_to_sales_totals(new);
      return null;
    end
    $$`.execute(db);
  await sql`
    create function order_refunds_add_to_sales_totals() returns trigger language plpgsql as $$
    begin
      perform add_refund_to_sales_totals(new);
      return null;
    end
    $$`.execute(db);
  await sql`create trigger orders_add_to_sales_totals after insert on orders for each row execute function orders_add_to_sales_totals()`.execute(
    db,
  );
  await sql`create trigger order_refunds_add_to_sales_totals after insert on order_refunds for each row execute function order_refunds_add_to_sales_totals()`.execute(
    db,
  );

  // What the shop has sold and refunded so far, once.
  await sql`select add_order_to_sales_totals(sold) from orders as sold`.execute(db);
  await sql`select add_refund_to_sales_totals(made) from order_refunds as made`.execute(db);

  // "Needs attention" and "To ship" on the dashboard count these few rows, not every order, from the index alone
  // (an oversold order's status and mode are in it: reading a thousand orders' rows for them took most of the page).
  await sql`create index orders_to_ship on orders (livemode) where status = 'paid'`.execute(db);
  await sql`create index orders_oversold_status on orders (paid_at desc, id desc) include (status, livemode) where (oversold or promotion_over_limit)`.execute(
    db,
  );
  await sql`drop index orders_oversold`.execute(db);
  await sql`create index checkout_payments_held on checkout_payments (updated_at desc) where status = 'needs_review'`.execute(
    db,
  );
  await setStatuses(db, ["open", "replaced", "paid", "needs_review", "refunded"]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await setStatuses(db, ["open", "replaced", "paid", "needs_review"]);
  await sql`drop index checkout_payments_held`.execute(db);
  await sql`create index orders_oversold on orders (paid_at desc) where oversold`.execute(db);
  await sql`drop index orders_oversold_status`.execute(db);
  await sql`drop index orders_to_ship`.execute(db);
  await sql`drop trigger order_refunds_add_to_sales_totals on order_refunds`.execute(db);
  await sql`drop trigger orders_add_to_sales_totals on orders`.execute(db);
  await sql`drop function order_refunds_add_to_sales_totals()`.execute(db);
  await sql`drop function orders_add_to_sales_totals()`.execute(db);
  await sql`drop function add_refund_to_sales_totals(order_refunds)`.execute(db);
  await sql`drop function add_order_to_sales_totals(orders)`.execute(db);
  await sql`drop function order_sales_lines(orders)`.execute(db);
  await sql`drop table product_sales_by_day`.execute(db);
  await sql`drop table product_sales_totals`.execute(db);
  await sql`drop table sales_totals`.execute(db);
  await sql`drop function sales_quarter_hour(timestamptz)`.execute(db);
}

/** Through the schema builder, so the statement names the migrated schema (raw SQL would follow search_path). */
async function setStatuses(db: Kysely<unknown>, statuses: string[]): Promise<void> {
  const table = db.schema.alterTable("checkout_payments");
  await table.dropConstraint("checkout_payments_status_check").execute();
  await table
    .addCheckConstraint(
      "checkout_payments_status_check",
      sql`status in (${sql.join(statuses.map((status) => sql.lit(status)))})`,
    )
    .execute();
}
