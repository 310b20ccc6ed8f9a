import { expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { preparedStatement } from "@storefront/kysely-prepared";

describeEachDatabase("prepared statements", (getDatabase) => {
  it("answers each call with its own values, as the same query built anew would", async () => {
    const { db } = getDatabase();
    const byPrice = preparedStatement(db, ["min", "max"], (db, values: { min: number; max: number }) =>
      db
        .selectFrom("products")
        .select(["id"])
        .where("price_cents", ">=", values.min)
        .where("price_cents", "<", values.max)
        .orderBy("id"),
    );
    const built = (min: number, max: number) =>
      db
        .selectFrom("products")
        .select(["id"])
        .where("price_cents", ">=", min)
        .where("price_cents", "<", max)
        .orderBy("id")
        .execute();
    for (const [min, max] of [
      [0, 2_000],
      [2_000, 100_000],
      [0, 0],
    ] as const) {
      expect((await byPrice({ min, max })).rows).toEqual(await built(min, max));
    }
  });

  it("refuses a constant among the parameters (it would be kept from the first call) and a value never used", async () => {
    const { db } = getDatabase();
    const withConstant = preparedStatement(db, ["id"], (db, values: { id: string }) =>
      db.selectFrom("products").select("id").where("id", "=", values.id).where("price_cents", ">", 0),
    );
    await expect(withConstant({ id: "12321341" })).rejects.toThrow(/not a named value/);
    const unused = preparedStatement(db, ["id", "slug"], (db, values: { id: string; slug: string }) =>
      db.selectFrom("products").select("id").where("id", "=", values.id),
    );
    await expect(unused({ id: "12321341", slug: "x" })).rejects.toThrow(/slug not used/);
  });

  it("runs in the transaction it is given: a rolled-back write is gone, and a read sees its own transaction's write", async () => {
    const { db } = getDatabase();
    const setPrice = preparedStatement(db, ["id", "price"], (db, values: { id: string; price: number }) =>
      db
        .updateTable("products")
        .set({ price_cents: values.price })
        .where("id", "=", values.id)
        .returning("price_cents"),
    );
    const priceOf = preparedStatement(db, ["id"], (db, values: { id: string }) =>
      db.selectFrom("products").select("price_cents").where("id", "=", values.id),
    );
    const before = (await priceOf({ id: "12321341" })).rows[0]!.price_cents;
    await expect(
      db.transaction().execute(async (trx) => {
        await setPrice({ id: "12321341", price: before + 1 }, trx);
        expect((await priceOf({ id: "12321341" }, trx)).rows[0]!.price_cents).toBe(before + 1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect((await priceOf({ id: "12321341" })).rows[0]!.price_cents).toBe(before);
  });
});
