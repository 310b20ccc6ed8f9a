import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { down, up } from "#server/db/migrations/0025-stock-alerts-by-variant";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341";
const ECHO = "23445930";

describeEachDatabase("migration 0025-stock-alerts-by-variant", (getDatabase) => {
  it("gives each alert kept by product its product's default variant, and keeps one waiting alert per address and variant", async () => {
    const db = getDatabase().db;
    const migrations = db as unknown as Kysely<unknown>;
    await down(migrations);
    // Alerts as they were kept by product: one waiting and confirmed, one used, one waiting and unconfirmed.
    await sql`insert into stock_alerts (product_id, email, confirmed_at, notified_at) values
      (${BOOK}, 'waiting@example.com', now(), null),
      (${BOOK}, 'used@example.com', now(), now()),
      (${ECHO}, 'unconfirmed@example.com', null, null)`.execute(db);

    await up(migrations);

    const rows = await db
      .selectFrom("stock_alerts")
      .select(["variant_id", "email", "notified_at"])
      .orderBy("email")
      .execute();
    expect(rows).toEqual([
      { variant_id: ECHO, email: "unconfirmed@example.com", notified_at: null },
      { variant_id: BOOK, email: "used@example.com", notified_at: expect.any(Date) },
      { variant_id: BOOK, email: "waiting@example.com", notified_at: null },
    ]);
    // One waiting alert per address and variant; a used one does not count.
    await expect(
      db
        .insertInto("stock_alerts")
        .values({
          variant_id: BOOK,
          email: "waiting@example.com",
          confirm_token_hash: null,
          confirmed_at: null,
          notified_at: null,
        })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/);
    await db
      .insertInto("stock_alerts")
      .values({
        variant_id: BOOK,
        email: "used@example.com",
        confirm_token_hash: null,
        confirmed_at: null,
        notified_at: null,
      })
      .execute();
    // An alert goes with its variant.
    await expect(
      db
        .insertInto("stock_alerts")
        .values({
          variant_id: "no-such-variant",
          email: "x@example.com",
          confirm_token_hash: null,
          confirmed_at: null,
          notified_at: null,
        })
        .execute(),
    ).rejects.toThrow(/foreign key/);
  });
});
