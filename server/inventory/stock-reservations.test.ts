import { afterAll, beforeAll, expect, it } from "vitest";
import { sql } from "kysely";
import { describeEachDatabase } from "#server/testing/test-database";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";

const BOOK = "12321341"; // The Lean Startup…, $11.96
const MONITOR = "4903850"; // $199.99
const ECHO = "23445930"; // $98.99
const IPAD = "49538094";
const HEADPHONES = "3254354345";
const BOOK_TITLE = "The Lean Startup: How Constant Innovation Creates Radically Successful Businesses";
const AUTHENTICATION_CARD = "4000002760003184";
const SLOW = { timeout: 180_000 };

type Browser = ReturnType<typeof createHttpBrowser>;
type ErrorAnswer = { error?: { code: string; message: string } };

describeEachDatabase(
  "stock: reserved at payment, sold with the order, released when the payment goes",
  (getDatabase) => {
    let origin = "";
    let publishableKey = "";
    let shop: Awaited<ReturnType<typeof createTestShop>>;
    let close: () => Promise<void> = async () => {};

    beforeAll(async () => {
      // The background sweep is the test's to run: expiry is asserted step by step.
      shop = await createTestShop(getDatabase(), { reservationSweepMs: 3_600_000 });
      const running = await shop.listen(0);
      origin = `http://127.0.0.1:${running.port}`;
      close = running.close;
      ({ publishableKey } = shop.processorKeys!);
    }, SLOW.timeout);
    afterAll(() => close());

    const db = () => getDatabase().db;
    const setStock = (variantId: string, onHand: number, continueSelling = false) =>
      shop.services.inventory.setStock(
        db(),
        variantId,
        { tracksStock: true, continueSelling, onHand },
        "operator@example.com",
      );
    const onHand = async (variantId: string) =>
      (
        await db()
          .selectFrom("product_variants")
          .select("on_hand")
          .where("id", "=", variantId)
          .executeTakeFirstOrThrow()
      ).on_hand;
    const shopperWith = async (...productIds: string[]) => {
      const browser = createHttpBrowser(origin);
      for (const productId of productIds)
        expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
      await addDeliveryAddress(browser);
      return browser;
    };
    const basketOf = async (browser: Browser) =>
      (
        (await (await browser.get("/basket")).json()) as {
          basket: { subtotalCents: number; items: { quantity: number; stockMessage?: string }[] };
        }
      ).basket;
    const pay = async (browser: Browser) => {
      const response = await browser.send(`/payments/create?total=${(await basketOf(browser)).subtotalCents}`, {
        method: "POST",
      });
      return { status: response.status, body: (await response.json()) as { clientSecret?: string } & ErrorAnswer };
    };
    const intentOf = (clientSecret = "") => clientSecret.split("_secret_")[0] ?? "";
    const holds = async (hold: string) =>
      (
        await db()
          .selectFrom("stock_reservations")
          .select(["variant_id", "quantity"])
          .where("hold", "=", hold)
          .execute()
      ).length;
    const ledger = (variantId: string) =>
      db().selectFrom("stock_ledger").selectAll().where("variant_id", "=", variantId).orderBy("id").execute();

    it(
      'holds the last unit for the first shopper to pay; the next is refused with "Only 0 left of …" and no intent is made',
      SLOW,
      async () => {
        await setStock(BOOK, 1);
        const first = await shopperWith(BOOK);
        const second = await shopperWith(BOOK);
        const paying = await pay(first);
        expect(paying.status).toBe(201);
        const paymentsBefore = await db()
          .selectFrom("checkout_payments")
          .select(sql<number>`count(*)::int`.as("count"))
          .executeTakeFirstOrThrow();

        const refused = await pay(second);
        expect(refused.status).toBe(409);
        expect(refused.body.error).toEqual({
          code: "STOCK_SHORT",
          message: `Only 0 left of ${BOOK_TITLE}`,
          requestId: expect.any(String) as string,
          details: expect.anything() as unknown,
        });
        const paymentsAfter = await db()
          .selectFrom("checkout_payments")
          .select(sql<number>`count(*)::int`.as("count"))
          .executeTakeFirstOrThrow();
        expect(paymentsAfter.count).toBe(paymentsBefore.count);
        // What the second shopper's basket says now, and what a third shopper is told.
        expect((await basketOf(second)).items[0]?.stockMessage).toBe("Out of stock: remove it to continue");
        const third = createHttpBrowser(origin);
        const added = await third.postJson("/basket/add", { productId: BOOK });
        expect(added.status).toBe(409);
        expect(((await added.json()) as ErrorAnswer).error?.message).toBe("This item is out of stock.");
        expect((await basketOf(third)).items).toEqual([]);
        // The same shopper asking again keeps their hold (a fresh RESERVATION_MINUTES), and is not refused by it.
        expect((await pay(first)).status).toBe(201);
        expect(await holds(intentOf(paying.body.clientSecret))).toBe(1);
      },
    );

    it('names a variant\'s option values when it is short: "Only 1 left of Classic Tee (M, Black)"', SLOW, async () => {
      const id = `tee-${Date.now()}`;
      await db()
        .insertInto("products")
        .values({
          id,
          slug: id,
          title: "Classic Tee",
          price_cents: 2000,
          rating: 4,
          image: "/images/products/12321341.webp",
          image_width: 400,
          image_height: 400,
          featured_position: null,
        })
        .execute();
      await db()
        .insertInto("product_options")
        .values([
          { product_id: id, position: 1, name: "Size", values: JSON.stringify(["S", "M"]) },
          { product_id: id, position: 2, name: "Colour", values: JSON.stringify(["Black"]) },
        ])
        .execute();
      await db().deleteFrom("product_variants").where("product_id", "=", id).execute();
      await db()
        .insertInto("product_variants")
        .values([
          {
            id: `${id}-s`,
            product_id: id,
            position: 1,
            option_values: JSON.stringify(["S", "Black"]),
            price_cents: 2000,
            sku: null,
            compare_at_cents: null,
            image: null,
            image_width: null,
            image_height: null,
            image_srcset: null,
          },
          {
            id: `${id}-m`,
            product_id: id,
            position: 2,
            option_values: JSON.stringify(["M", "Black"]),
            price_cents: 2200,
            sku: null,
            compare_at_cents: null,
            image: null,
            image_width: null,
            image_height: null,
            image_srcset: null,
          },
        ])
        .execute();
      await setStock(`${id}-m`, 2);
      const shopper = createHttpBrowser(origin);
      expect((await shopper.postJson("/basket/add", { productId: id, variantId: `${id}-m` })).status).toBe(201);
      // Asking for more than there is keeps what there is, and says so.
      const asked = await shopper.postJson("/basket/quantity", { productId: id, variantId: `${id}-m`, quantity: 3 });
      const capped = (
        (await asked.json()) as {
          basket: { items: { quantity: number; stockMessage?: string; variant: { options: unknown } }[] };
        }
      ).basket.items[0];
      expect(capped).toMatchObject({
        quantity: 2,
        stockMessage: "Only 2 left in stock",
        variant: {
          options: [
            { name: "Size", value: "M" },
            { name: "Colour", value: "Black" },
          ],
        },
      });
      await addDeliveryAddress(shopper);
      // Another shopper gets to the payment first with one of the two.
      const other = createHttpBrowser(origin);
      expect((await other.postJson("/basket/add", { productId: id, variantId: `${id}-m` })).status).toBe(201);
      await addDeliveryAddress(other);
      expect((await pay(other)).status).toBe(201);
      const refused = await pay(shopper);
      expect(refused.status).toBe(409);
      expect(refused.body.error?.message).toBe("Only 1 left of Classic Tee (M, Black)");
    });

    it("releases a reservation once it has expired: the sweep gives it back and writes the ledger", SLOW, async () => {
      await setStock(MONITOR, 1);
      const first = await shopperWith(MONITOR);
      const second = await shopperWith(MONITOR);
      const held = await pay(first);
      expect(held.status).toBe(201);
      expect((await pay(second)).status).toBe(409);
      await db()
        .updateTable("stock_reservations")
        .set({ expires_at: sql<Date>`now() - interval '1 second'` })
        .where("hold", "=", intentOf(held.body.clientSecret))
        .execute();
      expect(await shop.services.inventory.releaseExpired()).toBeGreaterThanOrEqual(1);
      expect(await holds(intentOf(held.body.clientSecret))).toBe(0);
      expect(
        (await ledger(MONITOR)).map((row) => [row.reason, row.counts, row.quantity_before, row.quantity_after]),
      ).toEqual([
        ["edit", "on_hand", 0, 1],
        ["reserve", "available", 1, 0],
        ["release", "available", 0, 1],
      ]);
      expect((await pay(second)).status).toBe(201);
    });

    it(
      "releases a replaced intent's reservation: the new intent holds the stock, the old one nothing",
      SLOW,
      async () => {
        await setStock(IPAD, 1);
        const shopper = await shopperWith(IPAD);
        const first = await pay(shopper);
        // 3-D Secure left open: the intent can no longer be re-priced, so a changed basket replaces it.
        const confirmed = await confirmCard(origin, first.body.clientSecret ?? "", publishableKey, AUTHENTICATION_CARD);
        expect(confirmed.body.status).toBe("requires_action");
        await setStock(BOOK, 5);
        expect((await shopper.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
        const second = await pay(shopper);
        expect(second.status).toBe(201);
        const [oldIntent, newIntent] = [intentOf(first.body.clientSecret), intentOf(second.body.clientSecret)];
        expect(newIntent).not.toBe(oldIntent);
        expect(await holds(oldIntent)).toBe(0);
        expect(await holds(newIntent)).toBe(2);
        expect(
          (
            await db()
              .selectFrom("checkout_payments")
              .select("status")
              .where("payment_intent_id", "=", oldIntent)
              .executeTakeFirstOrThrow()
          ).status,
        ).toBe("replaced");
      },
    );

    it(
      "sells once when the page, the webhook and the start-up sweep record the same payment at once",
      SLOW,
      async () => {
        await setStock(HEADPHONES, 3);
        const shopper = await shopperWith(HEADPHONES, HEADPHONES);
        const { body } = await pay(shopper);
        const confirmed = await confirmCard(origin, body.clientSecret ?? "", publishableKey, "4242424242424242");
        expect(confirmed.body.status).toBe("succeeded");
        const id = confirmed.body.id ?? "";
        // The webhook is on its way already; the page and a sweep ask at the same moment.
        await Promise.all([
          shopper.postJson("/orders/record", { paymentIntentId: id }),
          shop.services.checkout.recordMissedOrders(),
          shop.services.checkout.recordOrder(id, null),
        ]);
        // The webhook answered: the processor marks its event delivered only then.
        await expect
          .poll(
            async () =>
              (
                await sql<{ delivered: number }>`select count(*)::int as delivered from processor_events
                  where type = 'payment_intent.succeeded' and delivered_at is not null and payload like ${`%"${id}"%`}`.execute(
                  db(),
                )
              ).rows[0]?.delivered,
            { timeout: 30_000 },
          )
          .toBe(1);
        expect(await onHand(HEADPHONES)).toBe(1);
        const sales = (await ledger(HEADPHONES)).filter((row) => row.reason === "sale");
        expect(sales.map((row) => [row.quantity_before, row.quantity_after, row.reference])).toEqual([[3, 1, id]]);
        expect(await holds(id)).toBe(0);
      },
    );

    it(
      "records a payment made after its reservation lapsed, takes stock below zero and marks the order oversold",
      SLOW,
      async () => {
        await setStock(ECHO, 1);
        const late = await shopperWith(ECHO);
        const lateIntent = await pay(late);
        await db()
          .updateTable("stock_reservations")
          .set({ expires_at: sql<Date>`now() - interval '1 second'` })
          .where("hold", "=", intentOf(lateIntent.body.clientSecret))
          .execute();
        const prompt = await shopperWith(ECHO);
        const promptIntent = await pay(prompt);
        expect(promptIntent.status).toBe(201);
        for (const [browser, intent] of [
          [prompt, promptIntent],
          [late, lateIntent],
        ] as const) {
          const confirmed = await confirmCard(
            origin,
            intent.body.clientSecret ?? "",
            publishableKey,
            "4242424242424242",
          );
          expect(confirmed.body.status).toBe("succeeded");
          expect((await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id })).status).toBe(201);
        }
        expect(await onHand(ECHO)).toBe(-1);
        const orders = await db()
          .selectFrom("orders")
          .select(["id", "oversold"])
          .where("id", "in", [intentOf(promptIntent.body.clientSecret), intentOf(lateIntent.body.clientSecret)])
          .execute();
        expect(Object.fromEntries(orders.map((order) => [order.id, order.oversold]))).toEqual({
          [intentOf(promptIntent.body.clientSecret)]: false,
          [intentOf(lateIntent.body.clientSecret)]: true,
        });
      },
    );
  },
);
