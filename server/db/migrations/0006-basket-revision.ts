// Migration 0006: a basket's revision, which every change compares and moves, so concurrent changes are never lost or
// counted twice.

import type { Kysely } from "kysely";

// Every change to a basket counts up its revision. Pages and basket answers carry it, so the browser can tell
// whether the data it holds already shows a change it made (see app/features/basket/basket-context.tsx).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("baskets")
    .addColumn("revision", "integer", (column) => column.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("baskets").dropColumn("revision").execute();
}
