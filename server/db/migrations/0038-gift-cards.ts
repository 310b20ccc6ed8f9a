// Migration 0038: gift cards: products sold as gift cards, their sales with recipients, basket lines' recipients, and
// tax rates that may tax them.

import { sql, type Kysely } from "kysely";

/**
 * Gift cards sold as products. A product is a gift card by its `gift_card` kind: "denominations" (its variants'
 * prices, $25, $50, $100) or "any_amount" (the shopper's amount, $5 to $500, kept with the basket line). A basket
 * line of one keeps what its page asked (recipient, sender's name, message, send-on date) in `gift_card`, and the
 * paid order's lines keep them in their snapshot (orders.items).
 *
 * gift_card_sales has one row per card an order paid for (a line of two $50 cards is two rows), written in the
 * order's transaction, so each is delivered once: its card (a balance account of kind gift_card, whose code exists
 * only in the e-mail) is issued and e-mailed in one transaction, at payment or on its send-on date by the sweep.
 * A refund before that date cancels it; one after disables the card and refunds what is left on it.
 *
 * A tax rate taxes gift cards only when it says so (`taxes_gift_cards`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table products add column gift_card text check (gift_card in ('denominations', 'any_amount'))`.execute(
    db,
  );
  await sql`alter table basket_items add column gift_card jsonb`.execute(db);
  await sql`alter table tax_rates add column taxes_gift_cards boolean not null default false`.execute(db);
  await sql`
    create table gift_card_sales (
      id uuid primary key default gen_random_uuid(),
      order_id text not null references orders (id),
      line_index smallint not null check (line_index >= 0),
      sequence smallint not null check (sequence >= 1),
      amount_cents integer not null check (amount_cents > 0),
      recipient_email text not null,
      sender_name text not null,
      message text not null default '',
      -- A day of the shop's calendar, YYYY-MM-DD (text: compared as written, never moved by a session's zone).
      send_on text check (send_on ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
      account_id uuid unique references balance_accounts (id),
      delivered_at timestamptz,
      cancelled_at timestamptz,
      created_at timestamptz not null default now(),
      unique (order_id, line_index, sequence),
      check ((account_id is null) = (delivered_at is null)),
      check (delivered_at is null or cancelled_at is null)
    )`.execute(db);
  // The sweep's question: which cards are due and not yet sent.
  await sql`create index gift_card_sales_due on gift_card_sales (send_on) where delivered_at is null and cancelled_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table gift_card_sales`.execute(db);
  await sql`alter table tax_rates drop column taxes_gift_cards`.execute(db);
  await sql`alter table basket_items drop column gift_card`.execute(db);
  await sql`alter table products drop column gift_card`.execute(db);
}
