import { sql } from "kysely";
import { expect, it } from "vitest";
import { AppError } from "#shared/errors";
import { confirmCard, createHttpBrowser, TEST_DELIVERY_ADDRESS } from "#server/testing/test-app";
import { startTwoInstances } from "#server/testing/two-instances";

const BOOK = "12321341"; // $11.96
const SHOPPERS = 10;
const PRICE = 1_196;
const CARD = 2_000;
const OPERATOR = { id: null, email: "owner@console.test" };
const GROUPED_CODE = /\b([2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4} [2-9A-HJ-NP-Z]{4})\b/;

/**
 * One $20.00 gift card typed by ten shoppers at once, half on each of two instances sharing one PostgreSQL, each with
 * an $11.96 book in a guest basket. Every shopper pays as /payment lets them: "Place your order" when the card covers
 * the whole total, else the card 4242 pays what the gift card leaves; a refusal ("the balance has changed") sends them
 * round again, as the page does. At most $20.00 is spent on the card, at most one basket is covered by it alone, its
 * balance is never seen below zero, and every order's figures add up. Part of `npm run test:faults`.
 */
it.skipIf(!process.env.TEST_DATABASE_URL)(
  `${SHOPPERS} shoppers applying one $20.00 gift card at once on two instances spend at most $20.00`,
  { timeout: 600_000 },
  async () => {
    const instances = await startTwoInstances("gift-card-race");
    try {
      const { db, shops, origins, keys } = instances;
      const issued = await shops[0]!.services.giftCards.issueByHand(
        { email: "race@example.com", amountCents: CARD, note: "Race", expiresOn: null },
        OPERATOR,
      );
      const mail = await db
        .selectFrom("email_outbox")
        .select("text_body")
        .where("kind", "=", "gift-card")
        .where("recipient", "=", "race@example.com")
        .executeTakeFirstOrThrow();
      const code = GROUPED_CODE.exec(mail.text_body)?.[1] ?? "";
      expect(code).not.toBe("");

      // Ten guest baskets, each with the card's number typed on its own instance.
      const shoppers = await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, index) => {
          const origin = origins[index % 2]!;
          const services = shops[index % 2]!.services;
          const browser = createHttpBrowser(origin);
          expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
          const contact = `shopper-${index}-${crypto.randomUUID()}@example.com`;
          expect(
            (await browser.postJson("/checkout/address", { ...TEST_DELIVERY_ADDRESS, email: contact })).status,
          ).toBe(200);
          const row = await db
            .selectFrom("checkout_addresses")
            .select("session_id")
            .where("contact_email", "=", contact)
            .executeTakeFirstOrThrow();
          const owner = { sessionId: row.session_id! };
          const found = await services.giftCards.lookUp(code.toLowerCase(), {
            sessionId: owner.sessionId,
            ip: `10.1.0.${index + 1}`,
          });
          expect(found).toMatchObject({ ok: true, card: { accountId: issued.id, lastFour: issued.lastFour } });
          await services.checkoutBalances.apply(owner, issued.id);
          return { browser, owner, services, origin };
        }),
      );

      // The card's balance, read all through the race.
      let racing = true;
      const seen: number[] = [];
      const watcher = (async () => {
        while (racing) {
          const account = await db
            .selectFrom("balance_accounts")
            .select("balance_cents")
            .where("id", "=", issued.id)
            .executeTakeFirstOrThrow();
          seen.push(account.balance_cents);
        }
      })();

      // All at once, each paying as its page is priced.
      const outcomes = await Promise.all(
        shoppers.map(async ({ browser, owner, services, origin }) => {
          const refusals: string[] = [];
          for (let attempt = 1; attempt <= 6; attempt++) {
            const { pricing, freeOrderToken } = await services.checkout.priceCheckout(owner);
            expect(pricing.totalCents).toBe(PRICE);
            if (freeOrderToken) {
              const placed = await services.checkout.placeFreeOrder(owner, freeOrderToken).then(
                () => true,
                (error: unknown) => {
                  if (error instanceof AppError && error.status === 409) return false;
                  throw error;
                },
              );
              if (placed) return "covered by the gift card";
              refusals.push("free order refused");
              continue;
            }
            const response = await browser.send(`/payments/create?total=${pricing.totalCents}`, { method: "POST" });
            const body = (await response.json()) as { clientSecret?: string; error?: { message: string } };
            if (response.status === 409) {
              refusals.push(body.error?.message ?? "");
              continue;
            }
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
            return "paid by card";
          }
          return `gave up: ${refusals.join(" | ")}`;
        }),
      );
      racing = false;
      await watcher;

      expect(outcomes.filter((outcome) => outcome.startsWith("gave up"))).toEqual([]);
      expect(outcomes.filter((outcome) => outcome === "covered by the gift card").length).toBeLessThanOrEqual(1);

      // Ten orders; each one's figures add up: what the card was asked for and the gift card's part make its total.
      const orders = await db.selectFrom("orders").select(["id", "amount_cents", "pricing", "processor"]).execute();
      expect(orders).toHaveLength(SHOPPERS);
      const byGiftCard = orders.map((order) => {
        const pricing = order.pricing!;
        const balances = pricing.balances ?? [];
        expect(balances.every((balance) => balance.accountId === issued.id)).toBe(true);
        const paidByGiftCard = balances.reduce((sum, balance) => sum + balance.amountCents, 0);
        expect(pricing.totalCents).toBe(PRICE);
        expect(pricing.itemsCents - pricing.discountCents + pricing.shippingCents + pricing.taxCents).toBe(
          pricing.totalCents,
        );
        expect(paidByGiftCard).toBeGreaterThanOrEqual(0);
        expect(pricing.dueCents ?? pricing.totalCents).toBe(pricing.totalCents - paidByGiftCard);
        // The order keeps its total; a card paid only what the gift card left, and nobody paid for a covered one.
        expect(order.amount_cents).toBe(pricing.totalCents);
        expect(order.processor === "none").toBe(paidByGiftCard === pricing.totalCents);
        return paidByGiftCard;
      });
      const covered = byGiftCard.filter((cents) => cents === PRICE);
      expect(covered.length).toBeLessThanOrEqual(1);

      // The ledger: at most $20.00 spent, the spends are the orders' parts, the balance never below zero.
      const { rows } = await sql<{ spent: number; balance: number; sum: number }>`
        select (select coalesce(-sum(amount_cents), 0)::int from balance_entries where account_id = ${issued.id} and kind = 'spend') as spent,
               (select balance_cents from balance_accounts where id = ${issued.id}) as balance,
               (select coalesce(sum(amount_cents), 0)::int from balance_entries where account_id = ${issued.id}) as sum`.execute(
        db,
      );
      const ledger = rows[0]!;
      expect(ledger.spent).toBeGreaterThan(0);
      expect(ledger.spent).toBeLessThanOrEqual(CARD);
      expect(ledger.spent).toBe(byGiftCard.reduce((sum, cents) => sum + cents, 0));
      expect(ledger.balance).toBe(ledger.sum);
      expect(ledger.balance).toBe(CARD - ledger.spent);
      expect(seen.length).toBeGreaterThan(0);
      expect(Math.min(...seen, ledger.balance)).toBeGreaterThanOrEqual(0);
    } finally {
      await instances.close();
    }
  },
);
