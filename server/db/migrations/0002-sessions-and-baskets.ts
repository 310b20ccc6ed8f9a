// Migration 0002: browser sessions (hashed tokens) and the baskets and basket items they own.

import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // A browser's session: the cookie holds a random token, the table only its SHA-256, so a leaked table
  // cannot be replayed as cookies.
  await db.schema
    .createTable("sessions")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("token_hash", "text", (column) => column.notNull().unique())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("last_seen_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (column) => column.notNull())
    .execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").column("expires_at").execute();

  // One basket per owner. A guest's basket belongs to its session; accounts will own baskets too.
  await db.schema
    .createTable("baskets")
    .addColumn("id", "uuid", (column) => column.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("session_id", "uuid", (column) => column.unique().references("sessions.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();

  // Items keep only the product id: titles, pictures and prices always come from the catalogue.
  // The identity column orders them, so "remove the first match" is well defined.
  await db.schema
    .createTable("basket_items")
    .addColumn("id", "bigint", (column) => column.primaryKey().generatedAlwaysAsIdentity())
    .addColumn("basket_id", "uuid", (column) => column.notNull().references("baskets.id").onDelete("cascade"))
    .addColumn("product_id", "text", (column) => column.notNull().references("products.id"))
    .addColumn("added_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("basket_items_basket_id").on("basket_items").columns(["basket_id", "id"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("basket_items").execute();
  await db.schema.dropTable("baskets").execute();
  await db.schema.dropTable("sessions").execute();
}
