// Migration 0011: the e-mail outbox, account tokens for e-mailed links, and when an account's e-mail was confirmed.

import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // Null until the shopper follows the link in the welcome e-mail; shopping never waits for it.
  await db.schema.alterTable("users").addColumn("email_verified_at", "timestamptz").execute();

  // Single-use links sent by e-mail (password reset, e-mail verification): only the token's SHA-256 is kept.
  await db.schema
    .createTable("account_tokens")
    .addColumn("token_hash", "text", (column) => column.primaryKey())
    .addColumn("user_id", "uuid", (column) => column.notNull().references("users.id").onDelete("cascade"))
    .addColumn("purpose", "text", (column) =>
      column.notNull().check(sql`purpose in ('password-reset', 'email-verification')`),
    )
    .addColumn("expires_at", "timestamptz", (column) => column.notNull())
    .addColumn("used_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("account_tokens_user_purpose")
    .on("account_tokens")
    .columns(["user_id", "purpose"])
    .execute();

  // The transactional outbox: an e-mail is written in the transaction of the fact that causes it and delivered
  // afterwards by whichever instance claims it first (next_attempt_at doubles as the claim's lease).
  await db.schema
    .createTable("email_outbox")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("message_id", "text", (column) => column.notNull().unique())
    .addColumn("dedupe_key", "text", (column) => column.unique())
    .addColumn("kind", "text", (column) => column.notNull())
    .addColumn("recipient", "text", (column) => column.notNull())
    .addColumn("subject", "text", (column) => column.notNull())
    .addColumn("text_body", "text", (column) => column.notNull())
    .addColumn("html_body", "text", (column) => column.notNull())
    .addColumn("status", "text", (column) =>
      column
        .notNull()
        .defaultTo("pending")
        .check(sql`status in ('pending', 'sent', 'logged', 'failed', 'cancelled')`),
    )
    .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("last_error", "text")
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("sent_at", "timestamptz")
    .execute();
  await db.schema
    .createIndex("email_outbox_due")
    .on("email_outbox")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createIndex("email_outbox_newest")
    .on("email_outbox")
    .columns(["created_at desc", "id desc"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("email_outbox").execute();
  await db.schema.dropTable("account_tokens").execute();
  await db.schema.alterTable("users").dropColumn("email_verified_at").execute();
}
