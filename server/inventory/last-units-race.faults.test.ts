import { expect, it } from "vitest";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { countProcessorIntents, startTwoInstances } from "#server/testing/two-instances";

const BOOK = "12321341"; // $11.96
const SHOPPERS = 40;
const UNITS = 5;

/**
 * Forty shoppers, half on each of two instances sharing one PostgreSQL, all ask to pay for the last five units at the
 * same moment. Exactly five are handed a payment (and pay); the other 35 are refused at /payments/create before any
 * intent exists for them, so no card of theirs can be charged; the stock ends at 0 and never below. Part of
 * `npm run test:faults`.
 */
it.skipIf(!process.env.TEST_DATABASE_URL)(
  `${SHOPPERS} shoppers on two instances race for the last ${UNITS} units: exactly ${UNITS} pay`,
  { timeout: 600_000 },
  async () => {
    const instances = await startTwoInstances("last-units");
    try {
      const [a, b] = instances.origins;
      await instances.shops[0]!.services.inventory.setStock(
        instances.db,
        BOOK,
        { tracksStock: true, continueSelling: false, onHand: UNITS },
        "operator@example.com",
      );
      const shoppers = await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, index) => {
          const browser = createHttpBrowser(index % 2 ? b : a);
          expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
          await addDeliveryAddress(browser);
          return browser;
        }),
      );
      const intentsBefore = await countProcessorIntents(instances.db);

      const answers = await Promise.all(
        shoppers.map(async (browser) => {
          const response = await browser.send("/payments/create?total=1196", { method: "POST" });
          return {
            browser,
            status: response.status,
            body: (await response.json()) as { clientSecret?: string; error?: { message: string } },
          };
        }),
      );
      const handed = answers.filter((answer) => answer.status === 201);
      const refused = answers.filter((answer) => answer.status === 409);
      expect(
        answers
          .filter((answer) => answer.status !== 201 && answer.status !== 409)
          .map((answer) => [answer.status, answer.body]),
      ).toEqual([]);
      expect(handed).toHaveLength(UNITS);
      expect(refused).toHaveLength(SHOPPERS - UNITS);
      for (const answer of refused)
        expect(answer.body.error?.message).toBe(
          "Only 0 left of The Lean Startup: How Constant Innovation Creates Radically Successful Businesses",
        );
      // Refused before the processor was asked: the only intents made are the five handed out.
      expect((await countProcessorIntents(instances.db)) - intentsBefore).toBe(UNITS);

      for (const [index, answer] of handed.entries()) {
        const confirmed = await confirmCard(
          index % 2 ? b : a,
          answer.body.clientSecret ?? "",
          instances.keys.publishableKey,
          "4242424242424242",
        );
        expect(confirmed.body.status).toBe("succeeded");
        await answer.browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
      }
      const paidOrders = async () => (await instances.db.selectFrom("orders").select("id").execute()).length;
      await expect.poll(paidOrders, { timeout: 30_000 }).toBe(UNITS);
      const variant = await instances.db
        .selectFrom("product_variants")
        .select("on_hand")
        .where("id", "=", BOOK)
        .executeTakeFirstOrThrow();
      expect(variant.on_hand).toBe(0);
      const oversold = await instances.db.selectFrom("orders").select("id").where("oversold", "=", true).execute();
      expect(oversold).toEqual([]);
    } finally {
      await instances.close();
    }
  },
);
