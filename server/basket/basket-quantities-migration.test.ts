import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { down, up } from "#server/db/migrations/0009-basket-quantities";
import * as variantsAndStock from "#server/db/migrations/0016-variants-and-stock";
import * as stockAlertsByVariant from "#server/db/migrations/0025-stock-alerts-by-variant";
import { describeEachDatabase } from "#server/testing/test-database";
import { createTestShop } from "#server/testing/test-app";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99
const MONITOR = "4903850"; // $199.99

describeEachDatabase("migration 0009-basket-quantities", (getDatabase) => {
  it("counts duplicate rows into one line per product (at most 10), keeps the lines' order, and records today's prices", async () => {
    const db = getDatabase().db;
    const migrations = db as unknown as Kysely<unknown>;
    // The lines as they were before variants (and so before the alerts kept by variant), then before quantities.
    await stockAlertsByVariant.down(migrations);
    await variantsAndStock.down(migrations);
    await down(migrations);
    const session = await sql<{
      id: string;
    }>`insert into sessions (token_hash, expires_at) values (${crypto.randomUUID()}, now() + interval '1 day') returning id`.execute(
      db,
    );
    const basket = await sql<{
      id: string;
    }>`insert into baskets (session_id) values (${session.rows[0]!.id}) returning id`.execute(db);
    const basketId = basket.rows[0]!.id;
    // One row per item, as baskets were kept before: echo, book, echo, 12 monitors, book.
    const rows = [ECHO, BOOK, ECHO, ...Array<string>(12).fill(MONITOR), BOOK];
    for (const productId of rows)
      await sql`insert into basket_items (basket_id, product_id) values (${basketId}, ${productId})`.execute(db);

    await up(migrations);
    await variantsAndStock.up(migrations);
    await stockAlertsByVariant.up(migrations);

    const lines = await db
      .selectFrom("basket_items")
      .select(["product_id", "quantity", "added_price_cents"])
      .where("basket_id", "=", basketId)
      .orderBy("id")
      .execute();
    expect(lines).toEqual([
      { product_id: ECHO, quantity: 2, added_price_cents: 9899 },
      { product_id: BOOK, quantity: 2, added_price_cents: 1196 },
      { product_id: MONITOR, quantity: 10, added_price_cents: 19999 },
    ]);
    // One line per product from now on, and no quantity outside 1 to 10.
    await expect(
      db
        .insertInto("basket_items")
        .values({ basket_id: basketId, product_id: BOOK, variant_id: BOOK, added_price_cents: 1196 })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/);
    await expect(
      db.updateTable("basket_items").set({ quantity: 11 }).where("basket_id", "=", basketId).execute(),
    ).rejects.toThrow(/check constraint/);
    await expect(
      db.updateTable("basket_items").set({ quantity: 0 }).where("basket_id", "=", basketId).execute(),
    ).rejects.toThrow(/check constraint/);
  });

  it("reads an order stored before quantities as one of each of its items", async () => {
    const { db } = getDatabase();
    const { services } = await createTestShop(getDatabase());
    const session = await sql<{
      id: string;
    }>`insert into sessions (token_hash, expires_at) values (${crypto.randomUUID()}, now() + interval '1 day') returning id`.execute(
      db,
    );
    const sessionId = session.rows[0]!.id;
    const line = (productId: string, priceCents: number) => ({
      productId,
      title: productId,
      priceCents,
      rating: 4,
      image: { src: "/x.webp", width: 1, height: 1 },
    });
    await db
      .insertInto("orders")
      .values({
        id: `pi_old_${crypto.randomUUID()}`,
        session_id: sessionId,
        user_id: null,
        amount_cents: 1196 * 2 + 9899,
        currency: "usd",
        items: JSON.stringify([line(BOOK, 1196), line(BOOK, 1196), line(ECHO, 9899)]),
        created_at: new Date(),
      })
      .execute();
    const { orders } = await services.orders.listOrders({ sessionId }, null);
    expect(orders[0]?.items.map((item) => [item.productId, item.quantity])).toEqual([
      [BOOK, 1],
      [BOOK, 1],
      [ECHO, 1],
    ]);
  });
});
