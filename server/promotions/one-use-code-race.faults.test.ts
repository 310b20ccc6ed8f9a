import { sql } from "kysely";
import { expect, it } from "vitest";
import { promotionFormSchema } from "#shared/promotion-schemas";
import { addDeliveryAddress, confirmCard, createHttpBrowser } from "#server/testing/test-app";
import { countProcessorIntents, startTwoInstances } from "#server/testing/two-instances";

const BOOK = "12321341"; // $11.96, $10.76 with 10 % off
const SHOPPERS = 20;

/**
 * Twenty shoppers, half on each of two instances sharing one PostgreSQL, apply a one-use code and ask to pay at the
 * same moment. Exactly one is handed a payment at the discount (and pays); the other nineteen are told "This code has
 * already been used." at /payments/create, before any intent exists for them; the code is redeemed once. Part of
 * `npm run test:faults`.
 */
it.skipIf(!process.env.TEST_DATABASE_URL)(
  `${SHOPPERS} shoppers on two instances race for a one-use code: exactly one gets it`,
  { timeout: 600_000 },
  async () => {
    const instances = await startTwoInstances("one-use-code");
    try {
      const [a, b] = instances.origins;
      const form = promotionFormSchema.parse({
        code: "ONLYONCE",
        kind: "percentage",
        value: "10",
        minimumSubtotal: "",
        startsOn: "",
        endsOn: "",
        usageLimit: "1",
        status: "active",
      });
      await instances.shops[0]!.services.promotions.create(form, { id: null, email: "operator@example.com" });
      const shoppers = await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, index) => {
          const browser = createHttpBrowser(index % 2 ? b : a);
          expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
          await addDeliveryAddress(browser);
          expect((await browser.postJson("/checkout/promotion", { code: "onlyonce" })).status).toBe(200);
          return browser;
        }),
      );
      const intentsBefore = await countProcessorIntents(instances.db);

      const answers = await Promise.all(
        shoppers.map(async (browser) => {
          const response = await browser.send("/payments/create?total=1076", { method: "POST" });
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
      expect(handed).toHaveLength(1);
      expect(refused.map((answer) => answer.body.error?.message)).toEqual(
        Array(SHOPPERS - 1).fill("This code has already been used."),
      );
      // Refused before the processor was asked: the only intent made is the one handed out.
      expect((await countProcessorIntents(instances.db)) - intentsBefore).toBe(1);

      const confirmed = await confirmCard(
        a,
        handed[0]!.body.clientSecret ?? "",
        instances.keys.publishableKey,
        "4242424242424242",
      );
      expect(confirmed.body.status).toBe("succeeded");
      await handed[0]!.browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id });
      const discounted = async () =>
        await instances.db
          .selectFrom("orders")
          .select(["amount_cents", "discount_cents"])
          .where("promotion_code", "=", "ONLYONCE")
          .execute();
      await expect.poll(discounted, { timeout: 30_000 }).toEqual([{ amount_cents: 1076, discount_cents: 120 }]);
      const { rows } = await sql<{
        count: number;
      }>`select count(*)::int as count from promotion_uses where redeemed_at is not null`.execute(instances.db);
      expect(rows[0]?.count).toBe(1);
    } finally {
      await instances.close();
    }
  },
);
