// Migration 0041: gift cards sold are money owed, not sales, in the dashboard's running totals.

import { sql, type Kysely } from "kysely";

/**
 * Gift cards sold are money owed, not sales: the dashboard's running totals (migration 0023, refunds by line 0028)
 * leave gift card lines out. An order's sold lines no longer include them, so items sold, gross sales and the best
 * sellers leave them out, and an order of gift cards alone is not counted among the orders; a refund's lines of gift
 * cards (the card taken back) are not refunds of sales. The dashboard shows gift cards apart, as sold and still owed
 * (server/gift-cards/gift-card-figures.ts). Totals already kept are summed again from the orders and refunds, once,
 * when the shop has sold gift cards before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function order_sales_lines(sold orders)
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
      where coalesce(jsonb_typeof(item.value->'giftCard'), 'null') <> 'object'
    $$`.execute(db);

  // What an order's gift card lines came to before discounts (promotions never discount them).
  await sql`
    create function order_gift_card_cents(sold orders) returns bigint language sql stable as $$
      select coalesce(sum(coalesce((priced.value->>'amountCents')::bigint, (item.value->>'priceCents')::bigint * coalesce((item.value->>'quantity')::int, 1))), 0)::bigint
      from jsonb_array_elements(sold.items) with ordinality as item (value, position)
      left join jsonb_array_elements(case when jsonb_typeof(sold.pricing->'lines') = 'array' then sold.pricing->'lines' else '[]'::jsonb end)
        with ordinality as priced (value, position) on priced.position = item.position
      where jsonb_typeof(item.value->'giftCard') = 'object'
    $$`.execute(db);

  await sql`
    create or replace function add_order_to_sales_totals(sold orders) returns void language plpgsql as $$
    declare
      mode boolean := coalesce(sold.livemode, false);
      quarter timestamptz := sales_quarter_hour(sold.paid_at);
    begin
      insert into sales_totals as totals (livemode, starts_at, orders, items_sold, gross_cents, discount_cents, shipping_cents, tax_cents)
      select mode, quarter, case when count(lines.line) > 0 then 1 else 0 end, coalesce(sum(lines.quantity), 0),
             coalesce((sold.pricing->>'itemsCents')::bigint - order_gift_card_cents(sold), sum(lines.gross_cents), 0),
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

  // A refund's gift card lines give back money owed on a card, not sales: only its other lines (and any amount beyond
  // its lines) are refunds of sales.
  await sql`
    create or replace function add_refund_lines_to_sales_totals(made order_refunds) returns void language plpgsql as $$
    declare
      sold orders;
      mode boolean;
      lines_cents bigint;
      gift_card_cents bigint;
      rest order_refunds := made;
      share record;
      quarter timestamptz := sales_quarter_hour(made.created_at);
    begin
      select * into sold from orders where id = made.order_id;
      if not found then return; end if;
      select coalesce(sum(refunded.amount_cents), 0),
             coalesce(sum(refunded.amount_cents) filter (where jsonb_typeof(sold.items->refunded.line_index->'giftCard') = 'object'), 0)
        into lines_cents, gift_card_cents
        from order_refund_lines as refunded where refunded.refund_id = made.id;
      if lines_cents = 0 then
        perform add_refund_to_sales_totals(made);
        return;
      end if;
      mode := coalesce(sold.livemode, false);
      rest.amount_cents := made.amount_cents - lines_cents;
      if rest.amount_cents > 0 then perform add_refund_to_sales_totals(rest); end if;

      if lines_cents - gift_card_cents > 0 then
        insert into sales_totals as totals (livemode, starts_at, refund_cents) values (mode, quarter, lines_cents - gift_card_cents)
        on conflict (livemode, starts_at) do update set refund_cents = totals.refund_cents + excluded.refund_cents;
      end if;
      for share in
        select lines.product_id, sum(refunded.amount_cents)::bigint as cents, min(lines.title) as title
        from order_refund_lines as refunded
        join order_sales_lines(sold) as lines on lines.line = refunded.line_index + 1
        where refunded.refund_id = made.id
        group by lines.product_id
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

  await resum(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function order_sales_lines(sold orders)
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
    create or replace function add_order_to_sales_totals(sold orders) returns void language plpgsql as $$
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
  await sql`
    create or replace function add_refund_lines_to_sales_totals(made order_refunds) returns void language plpgsql as $$
    declare
      sold orders;
      mode boolean;
      lines_cents bigint;
      rest order_refunds := made;
      share record;
      quarter timestamptz := sales_quarter_hour(made.created_at);
    begin
      select coalesce(sum(amount_cents), 0) into lines_cents from order_refund_lines where refund_id = made.id;
      if lines_cents = 0 then
        perform add_refund_to_sales_totals(made);
        return;
      end if;
      select * into sold from orders where id = made.order_id;
      if not found then return; end if;
      mode := coalesce(sold.livemode, false);
      rest.amount_cents := made.amount_cents - lines_cents;
      if rest.amount_cents > 0 then perform add_refund_to_sales_totals(rest); end if;

      insert into sales_totals as totals (livemode, starts_at, refund_cents) values (mode, quarter, lines_cents)
      on conflict (livemode, starts_at) do update set refund_cents = totals.refund_cents + excluded.refund_cents;
      for share in
        select lines.product_id, sum(refunded.amount_cents)::bigint as cents, min(lines.title) as title
        from order_refund_lines as refunded
        join order_sales_lines(sold) as lines on lines.line = refunded.line_index + 1
        where refunded.refund_id = made.id
        group by lines.product_id
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
  await sql`drop function order_gift_card_cents(orders)`.execute(db);
  await resum(db);
}

/**
 * The totals summed again from every order and refund by the functions now in place, once, when any order sold a gift
 * card (otherwise they already agree, and a large shop is not made to wait).
 */
async function resum(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ any: boolean }>`select exists (select 1 from gift_card_sales) as any`.execute(db);
  if (!rows[0]?.any) return;
  await sql`delete from sales_totals`.execute(db);
  await sql`delete from product_sales_totals`.execute(db);
  await sql`delete from product_sales_by_day`.execute(db);
  await sql`select add_order_to_sales_totals(sold) from orders as sold where sold.paid_at is not null`.execute(db);
  await sql`select add_refund_lines_to_sales_totals(made) from order_refunds as made`.execute(db);
}
