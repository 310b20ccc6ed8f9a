import { sql } from "kysely";
import { expect, it } from "vitest";
import { AppError } from "#shared/errors";
import { confirmCard, createHttpBrowser, TEST_DELIVERY_ADDRESS } from "#server/testing/test-app";
import { startTwoInstances } from "#server/testing/two-instances";

const BOOK = "12321341";
const SHOPPERS = 10;
const PRICE = 3_000;
const CREDIT = 5_000;

/**
 * Ten checkouts of one store credit at once, half on each of two instances sharing one PostgreSQL: each basket is
 * $30.00 and the credit $50.00. Every checkout first tries to pay with the credit alone ("Place your order"), then,
 * refused, prepares a card payment for what the credit leaves, then by card alone. $30.00 of credit goes to one order,
 * at most $20.00 to another, the rest is paid by card, and at most $50.00 is spent: never a cent twice. Part of
 * `npm run test:faults`.
 */
it.skipIf(!process.env.TEST_DATABASE_URL)(
  `${SHOPPERS} checkouts of one $50.00 store credit at once on two instances spend at most $50.00`,
  { timeout: 600_000 },
  async () => {
    const instances = await startTwoInstances("store-credit-race");
    try {
      const { db, shops, origins, keys } = instances;
      // The book at $30.00 before either instance reads the catalogue (delivery is free, no tax in the seed).
      await db.updateTable("products").set({ price_cents: PRICE }).where("id", "=", BOOK).execute();
      await db.updateTable("product_variants").set({ price_cents: PRICE }).where("product_id", "=", BOOK).execute();
      const user = await db
        .insertInto("users")
        .values({ email: `race-${crypto.randomUUID()}@example.com`, password_hash: "x" })
        .returning("id")
        .executeTakeFirstOrThrow();
      const ledger = shops[0]!.services.balances;
      const account = await ledger.openStoreCredit(user.id);
      await ledger.issue(db, account.id, CREDIT, { note: "Refund to store credit" });

      // Ten baskets, each checking out with the same balance applied.
      const shoppers = await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, index) => {
          const origin = origins[index % 2]!;
          const browser = createHttpBrowser(origin);
          expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
          const { email: _email, ...address } = TEST_DELIVERY_ADDRESS;
          const contact = `shopper-${index}-${crypto.randomUUID()}@example.com`;
          expect((await browser.postJson("/checkout/address", { ...address, email: contact })).status).toBe(200);
          const row = await db
            .selectFrom("checkout_addresses")
            .select("session_id")
            .where("contact_email", "=", contact)
            .executeTakeFirstOrThrow();
          const owner = { sessionId: row.session_id! };
          const services = shops[index % 2]!.services;
          await services.checkoutBalances.apply(owner, account.id);
          return { browser, owner, services, origin };
        }),
      );

      // 1. All at once, with the credit alone (each page priced with $50.00 available: nothing left for a card).
      const free = await Promise.all(
        shoppers.map(async ({ owner, services }) => {
          const { freeOrderToken } = await services.checkout.priceCheckout(owner);
          if (!freeOrderToken) return "not offered";
          return services.checkout.placeFreeOrder(owner, freeOrderToken).then(
            () => "placed",
            (error: unknown) => {
              if (error instanceof AppError && error.status === 409) return "refused";
              throw error;
            },
          );
        }),
      );
      expect(free.filter((answer) => answer === "placed")).toHaveLength(1);

      // 2. The others at once, by card for what the credit leaves them; refused ones go again, by card alone.
      const left = shoppers.filter((_, index) => free[index] !== "placed");
      const paid = await Promise.all(
        left.map(async ({ browser, origin }) => {
          for (let attempt = 1; attempt <= 3; attempt++) {
            const response = await browser.send(`/payments/create?total=${PRICE}`, { method: "POST" });
            const body = (await response.json()) as { clientSecret?: string; error?: { message: string } };
            if (response.status === 409) continue;
            expect(response.status, JSON.stringify(body)).toBe(201);
            const confirmed = await confirmCard(
              origin,
              body.clientSecret ?? "",
              keys.publishableKey,
              "4242424242424242",
            );
            expect(confirmed.body.status).toBe("succeeded");
            const recorded = await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
            expect(recorded.status).toBeLessThan(300);
            return "paid";
          }
          return "gave up";
        }),
      );
      expect(paid).toEqual(Array(left.length).fill("paid"));

      // Every basket became an order; the credit paid $30.00 of one, at most $20.00 of another, never more than $50.00.
      const orders = await db.selectFrom("orders").select(["id", "amount_cents", "pricing"]).execute();
      expect(orders).toHaveLength(SHOPPERS);
      const byCredit = orders
        .map((order) => (order.pricing?.balances ?? []).reduce((sum, balance) => sum + balance.amountCents, 0))
        .filter((cents) => cents > 0)
        .sort((a, b) => b - a);
      expect(byCredit[0]).toBe(PRICE);
      expect(byCredit.slice(1).every((cents) => cents <= CREDIT - PRICE)).toBe(true);
      expect(byCredit.length).toBeLessThanOrEqual(2);
      const { rows } = await sql<{ spent: number; balance: number; sum: number }>`
        select (select coalesce(-sum(amount_cents), 0)::int from balance_entries where account_id = ${account.id} and kind = 'spend') as spent,
               (select balance_cents from balance_accounts where id = ${account.id}) as balance,
               (select coalesce(sum(amount_cents), 0)::int from balance_entries where account_id = ${account.id}) as sum`.execute(
        db,
      );
      expect(rows[0]!.spent).toBeLessThanOrEqual(CREDIT);
      expect(rows[0]!.spent).toBe(byCredit.reduce((sum, cents) => sum + cents, 0));
      expect(rows[0]!.balance).toBe(rows[0]!.sum);
      expect(rows[0]!.balance).toBe(CREDIT - rows[0]!.spent);
    } finally {
      await instances.close();
    }
  },
);
