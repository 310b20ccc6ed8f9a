import { expect, it } from "vitest";
import { sql } from "kysely";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { startTwoInstances } from "#server/testing/two-instances";

const PRODUCTS = ["12321341", "49538094", "4903850", "23445930", "3254354345", "90829332"];
const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 20) * 10;

/**
 * The race an attacker can retry for free, run many times over two instances on one PostgreSQL: one shopper's two
 * tabs change the basket and price it at once, each on its own instance, and whatever payment a tab was handed is
 * paid. Whatever interleaving the two instances fall into, every charged intent ends as exactly one order listing
 * what was paid, or as a payment held for review; never an order listing more, or less, than the processor took.
 * Part of `npm run test:faults` (FAULT_ROUNDS × 10 rounds).
 */
it.skipIf(!process.env.TEST_DATABASE_URL)(
  `overlapping pricing of different baskets on two instances never records an order unlike its payment (${ROUNDS} rounds)`,
  { timeout: 600_000 },
  async () => {
    const instances = await startTwoInstances("race");
    try {
      const [a, b] = instances.origins;
      const first = createHttpBrowser(a);
      expect((await first.postJson("/basket/add", { productId: PRODUCTS[0] })).status).toBe(201);
      const tabs = [first, createHttpBrowser(b)];
      tabs[1]!.send = (
        (send) =>
        (path: string, init: RequestInit = {}) =>
          send(path, {
            ...init,
            headers: { ...Object.fromEntries(new Headers(init.headers)), cookie: first.cookie ?? "" },
          })
      )(tabs[1]!.send);
      const paid = new Set<string>();

      for (let round = 0; round < ROUNDS; round++) {
        // One tab prices the basket as it is while the other changes it and prices the result, a few milliseconds
        // apart, each on its own instance: two re-pricings of one intent for different baskets, in flight together.
        const { basket } = (await (await first.send("/basket")).json()) as {
          basket: { subtotalCents: number; count: number };
        };
        const asked = await Promise.all([
          basket.count > 0 ? requestPayment(tabs[0]!, basket.subtotalCents) : null,
          (async () => {
            await new Promise((resolve) => setTimeout(resolve, round % 7));
            const productId = PRODUCTS[round % PRODUCTS.length]!;
            const change = await tabs[1]!.send(
              basket.count > 3 ? "/basket/remove" : "/basket/add",
              jsonPost({ productId }),
            );
            const changed = ((await change.json()) as { basket?: { subtotalCents: number; count: number } }).basket;
            return changed && changed.count > 0 ? requestPayment(tabs[1]!, changed.subtotalCents) : null;
          })(),
        ]);
        // Every few rounds a tab pays with what it was handed.
        const clientSecret = asked[round % 2] ?? asked[(round + 1) % 2];
        if (!clientSecret || round % 4 !== 3) continue;
        const confirmed = await confirmCard(
          round % 2 ? a : b,
          clientSecret,
          instances.keys.publishableKey,
          "4242424242424242",
        );
        if (confirmed.body.status !== "succeeded") continue;
        paid.add(confirmed.body.id ?? "");
        await tabs[round % 2]!.send("/orders/record", jsonPost({ paymentIntentId: confirmed.body.id }));
      }

      expect(paid.size).toBeGreaterThan(ROUNDS / 8);
      // Every charged intent is accounted for (the page's call or the webhook), exactly once.
      const settled = async () =>
        (
          await instances.db
            .selectFrom("checkout_payments")
            .select(sql<number>`count(*)::int`.as("count"))
            .where("payment_intent_id", "in", [...paid])
            .where("status", "in", ["paid", "needs_review"])
            .executeTakeFirstOrThrow()
        ).count;
      await expect.poll(settled, { timeout: 30_000 }).toBe(paid.size);

      const orders = await instances.db.selectFrom("orders").select(["id", "amount_cents", "items"]).execute();
      const charged = new Map<string, number>();
      for (const id of paid) {
        const intent = await fetch(`${a}/_processor/v1/payment_intents/${id}`, {
          headers: { authorization: `Bearer ${instances.keys.secretKey}` },
        });
        charged.set(id, ((await intent.json()) as { amount: number }).amount);
      }
      for (const order of orders) {
        expect(order.amount_cents, `order ${order.id}: what the processor charged`).toBe(charged.get(order.id));
        expect(
          order.items.reduce((sum, item) => sum + item.priceCents * (item.quantity ?? 1), 0),
          `order ${order.id}: the sum of its lines`,
        ).toBe(order.amount_cents);
      }
      const held = await instances.db
        .selectFrom("checkout_payments")
        .select("payment_intent_id")
        .where("status", "=", "needs_review")
        .execute();
      expect(orders.length + held.length).toBe(paid.size);
      console.info(
        `payment race: ${ROUNDS} rounds, ${paid.size} payments, ${orders.length} orders, ${held.length} held for review`,
      );
    } finally {
      await instances.close();
    }
  },
);

async function requestPayment(tab: ReturnType<typeof createHttpBrowser>, totalCents: number): Promise<string | null> {
  await addDeliveryAddress(tab);
  const created = await tab.send(`/payments/create?total=${totalCents}`, { method: "POST" });
  return created.status === 201 ? ((await created.json()) as { clientSecret: string }).clientSecret : null;
}

function jsonPost(body: unknown): RequestInit {
  return { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } };
}
