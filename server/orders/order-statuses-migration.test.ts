import { sql, type Kysely } from "kysely";
import { expect, it } from "vitest";
import { down, up } from "#server/db/migrations/0028-refund-lines-and-order-statuses";
import { describeEachDatabase } from "#server/testing/test-database";
import { createTestShop } from "#server/testing/test-app";
import { newOrderNumber } from "./order-number";

const ITEM = {
  productId: "12321341",
  title: "A book",
  priceCents: 1196,
  quantity: 2,
  rating: 4,
  image: { src: "/images/book.webp", width: 10, height: 10 },
};

/**
 * Migration 0028 gives the orders that existed before it their payment and fulfilment statuses from their one status,
 * history and refunded amount: a partly refunded order that was never sent becomes Unfulfilled, to ship again.
 */
describeEachDatabase("migration 0028-refund-lines-and-order-statuses", (getDatabase) => {
  it("maps each order's history and refunds to its two statuses", async () => {
    await createTestShop(getDatabase());
    const db = getDatabase().db;
    const migrations = db as unknown as Kysely<unknown>;
    await down(migrations);
    let sequence = 0;
    /** An order as the shop kept it before: its last step, its refunded amount, and the steps of its history. */
    async function order(status: string, refundedCents: number, history: string[]) {
      const id = `pi_statusmap${Date.now()}${sequence++}`;
      await sql`insert into orders (id, number, amount_cents, currency, items, status, refunded_cents, created_at)
        values (${id}, ${newOrderNumber(new Date())}, 2392, 'usd', ${JSON.stringify([ITEM])}, ${status}, ${refundedCents}, now())`.execute(
        db,
      );
      for (const step of ["paid", ...history])
        await sql`insert into order_status_history (order_id, status, actor) values (${id}, ${step}, 'shop')`.execute(
          db,
        );
      return id;
    }
    const paid = await order("paid", 0, []);
    const partlyRefundedNeverSent = await order("partially_refunded", 500, ["partially_refunded"]);
    const shippedThenPartlyRefunded = await order("partially_refunded", 500, ["shipped", "partially_refunded"]);
    const cancelledAndRefunded = await order("refunded", 2392, ["cancelled", "refunded"]);
    const disputed = await order("disputed", 0, ["shipped", "disputed"]);
    await up(migrations);

    const rows = await db.selectFrom("orders").select(["id", "payment_status", "fulfilment_status"]).execute();
    const of = (id: string) => rows.find((row) => row.id === id);
    expect(of(paid)).toMatchObject({ payment_status: "paid", fulfilment_status: "unfulfilled" });
    expect(of(partlyRefundedNeverSent)).toMatchObject({
      payment_status: "partially_refunded",
      fulfilment_status: "unfulfilled",
    });
    expect(of(shippedThenPartlyRefunded)).toMatchObject({
      payment_status: "partially_refunded",
      fulfilment_status: "shipped",
    });
    expect(of(cancelledAndRefunded)).toMatchObject({ payment_status: "refunded", fulfilment_status: "cancelled" });
    expect(of(disputed)).toMatchObject({ payment_status: "disputed", fulfilment_status: "shipped" });
  });
});
