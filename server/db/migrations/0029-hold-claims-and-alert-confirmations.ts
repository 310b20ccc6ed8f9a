// Migration 0029: hold claims (how much one shopper may hold at once) and stock alerts confirmed by e-mail.

import { sql, type Kysely } from "kysely";

/**
 * Who holds what while paying: one row per holder (a session, a client address), thing held (a variant, a promotion
 * code) and hold. A hold lives at most RESERVATION_MINUTES from its first reservation, however often the payment is
 * prepared again; a row that lapsed (neither sold nor let go) keeps its holder from holding that thing again for
 * another RESERVATION_MINUTES, and the units of live rows are what the per-session and per-address caps count.
 *
 * And when a stock alert's "Confirm your alert" was last sent, with the mailbox it went to (lower-cased, without a
 * +tag): at most one such e-mail waits unconfirmed per mailbox and day.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table hold_claims (
      holder text not null,
      item text not null,
      hold text not null,
      units integer not null check (units >= 0),
      first_reserved_at timestamptz not null default now(),
      expires_at timestamptz not null,
      primary key (holder, item, hold)
    )`.execute(db);
  await sql`create index hold_claims_hold on hold_claims (hold)`.execute(db);
  await sql`create index hold_claims_expires_at on hold_claims (expires_at)`.execute(db);

  await sql`alter table stock_alerts add column mailbox text`.execute(db);
  await sql`alter table stock_alerts add column confirmation_sent_at timestamptz`.execute(db);
  await sql`
    update stock_alerts
       set mailbox = regexp_replace(lower(email), '^([^@+]+)[+][^@]*@', '\\1@'),
           confirmation_sent_at = case when confirmed_at is null and confirm_token_hash is not null then created_at end`.execute(
    db,
  );
  await sql`create index stock_alerts_pending_mailbox on stock_alerts (mailbox, confirmation_sent_at) where confirmed_at is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists hold_claims`.execute(db);
  await sql`drop index if exists stock_alerts_pending_mailbox`.execute(db);
  await sql`alter table stock_alerts drop column if exists confirmation_sent_at`.execute(db);
  await sql`alter table stock_alerts drop column if exists mailbox`.execute(db);
}
