// Migration 0028: a refund's lines, shipping, reason and destination, and an order's payment and fulfilment statuses
// apart.

import { sql, type Kysely } from "kysely";

/**
 * An order's payment and its fulfilment, apart: `payment_status` (paid, partially refunded, refunded, disputed) and
 * `fulfilment_status` (unfulfilled, shipped, partially returned, returned, cancelled), mapped from each order's
 * history and refunded amount, so a partly refunded order that was never sent is still to ship. Refunds get their
 * lines (which units of which order line, for how much), their shipping, a reason and where the money went; and every
 * unit put back in stock is a row of its own, so a line is never restocked beyond what was sold. A refund with lines
 * counts in the sales totals against the products of its lines (what the lines do not account for, shipping, is shared
 * over the order's products as any refund is): the refund's trigger now runs at commit, when its lines are written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table orders
      add column payment_status text not null default 'paid'
        check (payment_status in ('paid', 'partially_refunded', 'refunded', 'disputed')),
      add column fulfilment_status text not null default 'unfulfilled'
        check (fulfilment_status in ('unfulfilled', 'shipped', 'partially_returned', 'returned', 'cancelled'))`.execute(
    db,
  );
  await sql`
    update orders set
      payment_status = case
        when status = 'disputed' then 'disputed'
        when refunded_cents > 0 and refunded_cents >= amount_cents then 'refunded'
        when refunded_cents > 0 then 'partially_refunded'
        else 'paid' end,
      fulfilment_status = case
        when exists (select 1 from order_status_history h where h.order_id = orders.id and h.status = 'cancelled')
          then 'cancelled'
        when exists (select 1 from order_status_history h where h.order_id = orders.id and h.status = 'shipped')
          then 'shipped'
        else 'unfulfilled' end`.execute(db);

  // "To ship" (the dashboard's count) and the list's filters by either status, newest paid first.
  await sql`drop index if exists orders_to_ship`.execute(db);
  await sql`create index orders_to_ship on orders (livemode) where fulfilment_status = 'unfulfilled'`.execute(db);
  await sql`create index orders_fulfilment_paid on orders (fulfilment_status, paid_at desc, id desc)`.execute(db);
  await sql`create index orders_payment_paid on orders (payment_status, paid_at desc, id desc)`.execute(db);
  await sql`drop index if exists orders_oversold_status`.execute(db);
  await sql`create index orders_oversold_status on orders (paid_at desc, id desc) include (payment_status, fulfilment_status, livemode) where (oversold or promotion_over_limit)`.execute(
    db,
  );

  await sql`
    alter table order_refunds
      add column shipping_cents integer not null default 0 check (shipping_cents >= 0),
      add column reason text check (char_length(reason) <= 500),
      add column destination text not null default 'card' check (destination in ('card', 'store_credit'))`.execute(db);
  await sql`
    create table order_refund_lines (
      refund_id text not null references order_refunds (id) on delete cascade,
      order_id text not null references orders (id) on delete cascade,
      line_index integer not null check (line_index >= 0),
      quantity integer not null check (quantity > 0),
      amount_cents integer not null check (amount_cents >= 0),
      primary key (refund_id, line_index)
    )`.execute(db);
  await sql`create index order_refund_lines_order on order_refund_lines (order_id)`.execute(db);
  await sql`
    create table order_restocks (
      id bigint generated always as identity primary key,
      order_id text not null references orders (id) on delete cascade,
      line_index integer not null check (line_index >= 0),
      quantity integer not null check (quantity > 0),
      refund_id text references order_refunds (id) on delete cascade,
      cause text not null check (cause in ('refund', 'cancel')),
      actor text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index order_restocks_order on order_restocks (order_id, line_index)`.execute(db);

  await sql`
    create function add_refund_lines_to_sales_totals(made order_refunds) returns void language plpgsql as $$
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
  await sql`drop trigger order_refunds_add_to_sales_totals on order_refunds`.execute(db);
  await sql`
    create or replace function order_refunds_add_to_sales_totals() returns trigger language plpgsql as $$
    begin
      perform add_refund_lines_to_sales_totals(new);
      return null;
    end
    $$`.execute(db);
  await sql`create constraint trigger order_refunds_add_to_sales_totals after insert on order_refunds deferrable initially deferred for each row execute function order_refunds_add_to_sales_totals()`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger order_refunds_add_to_sales_totals on order_refunds`.execute(db);
  await sql`
    create or replace function order_refunds_add_to_sales_totals() returns trigger language plpgsql as $$
    begin
      perform add_refund_to_sales_totals(new);
      return null;
    end
    $$`.execute(db);
  await sql`create trigger order_refunds_add_to_sales_totals after insert on order_refunds for each row execute function order_refunds_add_to_sales_totals()`.execute(
    db,
  );
  await sql`drop function add_refund_lines_to_sales_totals(order_refunds)`.execute(db);
  await sql`drop table order_restocks`.execute(db);
  await sql`drop table order_refund_lines`.execute(db);
  await sql`alter table order_refunds drop column destination, drop column reason, drop column shipping_cents`.execute(
    db,
  );
  await sql`drop index orders_oversold_status`.execute(db);
  await sql`create index orders_oversold_status on orders (paid_at desc, id desc) include (status, livemode) where (oversold or promotion_over_limit)`.execute(
    db,
  );
  await sql`drop index orders_payment_paid`.execute(db);
  await sql`drop index orders_fulfilment_paid`.execute(db);
  await sql`drop index orders_to_ship`.execute(db);
  await sql`create index orders_to_ship on orders (livemode) where status = 'paid'`.execute(db);
  await sql`alter table orders drop column fulfilment_status, drop column payment_status`.execute(db);
}
