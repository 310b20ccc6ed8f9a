// Migration 0003: accounts (users), a session's and a basket's account, and the rate limits' counters.

import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // E-mail addresses are stored trimmed and lower-cased, so the unique key is the whole rule.
  await db.schema
    .createTable("users")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("email", "text", (column) => column.notNull().unique())
    .addColumn("password_hash", "text", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();

  // A signed-in session names its user; signing out deletes the row.
  await db.schema
    .alterTable("sessions")
    .addColumn("user_id", "uuid", (column) => column.references("users.id").onDelete("cascade"))
    .execute();
  await db.schema.createIndex("sessions_user_id").on("sessions").column("user_id").execute();

  // A basket belongs to a guest session or to an account, never both.
  await db.schema
    .alterTable("baskets")
    .addColumn("user_id", "uuid", (column) => column.unique().references("users.id").onDelete("cascade"))
    .execute();
  await db.schema
    .alterTable("baskets")
    .addCheckConstraint("baskets_one_owner", sql`(session_id is null) <> (user_id is null)`)
    .execute();

  // Fixed-window counters for sign-in and registration attempts, shared by every instance.
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "text", (column) => column.primaryKey())
    .addColumn("window_started_at", "timestamptz", (column) => column.notNull())
    .addColumn("attempts", "integer", (column) => column.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("rate_limits").execute();
  await db.schema.alterTable("baskets").dropConstraint("baskets_one_owner").execute();
  await db.schema.alterTable("baskets").dropColumn("user_id").execute();
  await db.schema.alterTable("sessions").dropColumn("user_id").execute();
  await db.schema.dropTable("users").execute();
}
