// Migration 0001, the first table: products, with the price in integer cents and the picture's size.

import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("products")
    .addColumn("id", "text", (column) => column.primaryKey())
    .addColumn("title", "text", (column) => column.notNull())
    .addColumn("price_cents", "integer", (column) => column.notNull().check(sql`price_cents >= 0`))
    .addColumn("rating", "smallint", (column) => column.notNull().check(sql`rating between 1 and 5`))
    .addColumn("image", "text", (column) => column.notNull())
    .addColumn("image_width", "integer", (column) => column.notNull())
    .addColumn("image_height", "integer", (column) => column.notNull())
    .addColumn("position", "integer", (column) => column.notNull())
    .addColumn("created_at", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("products").execute();
}
