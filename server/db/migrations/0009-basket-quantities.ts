// Migration 0009: a basket line's quantity and the price it was added at, one line per product.

import { sql, type Kysely } from "kysely";

/** The most of one product a basket line may hold (BASKET_LINE_LIMIT in shared/basket.ts, as it stood when this ran). */
const LINE_LIMIT = 10;

// A basket holds one line per product with a quantity, instead of one row per item. Duplicate rows of a product are
// counted into the quantity of its earliest row (so the line keeps its place in the basket), capped at the line
// limit, and the rest deleted. Each line also records the price it was added at, so a shopper can be told when the
// catalogue's price has changed since; existing lines take the current price, as nobody has been shown another.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("basket_items")
    .addColumn("quantity", "integer", (column) => column.notNull().defaultTo(1))
    .addColumn("added_price_cents", "integer")
    .execute();
  await sql`
    update basket_items as line set quantity = least(counted.items, ${sql.lit(LINE_LIMIT)})
    from (select min(id) as first_id, count(*) as items from basket_items group by basket_id, product_id having count(*) > 1) as counted
    where line.id = counted.first_id`.execute(db);
  await sql`
    delete from basket_items as later
    using basket_items as earlier
    where earlier.basket_id = later.basket_id and earlier.product_id = later.product_id and earlier.id < later.id`.execute(
    db,
  );
  await sql`update basket_items set added_price_cents = products.price_cents from products where products.id = basket_items.product_id`.execute(
    db,
  );
  await db.schema
    .alterTable("basket_items")
    .alterColumn("added_price_cents", (column) => column.setNotNull())
    .execute();
  await db.schema
    .alterTable("basket_items")
    .addCheckConstraint("basket_items_quantity_check", sql`quantity between 1 and ${sql.lit(LINE_LIMIT)}`)
    .execute();
  // One line per product: also serves every read of a basket's lines, so the old (basket_id, id) index goes.
  await db.schema
    .createIndex("basket_items_basket_product")
    .on("basket_items")
    .columns(["basket_id", "product_id"])
    .unique()
    .execute();
  await db.schema.dropIndex("basket_items_basket_id").execute();
}

/** Back to one row per item: each line becomes `quantity` rows again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("basket_items_basket_id").on("basket_items").columns(["basket_id", "id"]).execute();
  await db.schema.dropIndex("basket_items_basket_product").execute();
  await sql`
    insert into basket_items (basket_id, product_id, added_at, quantity, added_price_cents)
    select basket_id, product_id, added_at, 1, added_price_cents from basket_items, generate_series(2, quantity)`.execute(
    db,
  );
  await db.schema.alterTable("basket_items").dropConstraint("basket_items_quantity_check").execute();
  await db.schema.alterTable("basket_items").dropColumn("quantity").dropColumn("added_price_cents").execute();
}
