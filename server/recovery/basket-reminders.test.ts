import { afterAll, beforeAll, expect, it } from "vitest";
import { sql } from "kysely";
import { createLogger } from "#server/logger";
import { sha256Base64url } from "#server/tokens";
import { describeEachDatabase } from "#server/testing/test-database";
import { confirmCard, createHttpBrowser, createTestShop, TEST_DELIVERY_ADDRESS } from "#server/testing/test-app";
import { createBasketReminders } from "./basket-reminders";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const OPERATOR = { id: null, email: "operator@recovery.test" };

/**
 * Basket reminders on a real shop and database, with the sweep's clock set by the test: the e-mail is written once,
 * at the right hour, only with consent, never after payment, unsubscribe or a reminder to the same address within 7
 * days, once however many sweeps run at once; its link brings the basket back in another browser without signing in.
 */
describeEachDatabase("basket reminders", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let publishableKey = "";
  let close: () => Promise<void> = async () => {};
  let counter = 0;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase(), { recoveryHours: 4 });
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
    publishableKey = shop.processorKeys!.publishableKey;
  }, 120_000);
  afterAll(() => close());

  /** A sweep whose clock reads `offsetMs` from now (each call reads the real time again). */
  const sweepAt = (offsetMs: number) =>
    createBasketReminders({
      db: getDatabase().db,
      basket: shop.services.basket,
      email: shop.services.email,
      preferences: shop.services.emailPreferences,
      settings: shop.services.recoverySettings,
      logger: createLogger("silent"),
      now: () => new Date(Date.now() + offsetMs),
    });
  const uniqueEmail = () => `shopper${Date.now()}${++counter}@recovery.test`;

  /** A guest with a basket and the checkout address, with or without the tick. */
  async function guest(email: string, { consent, products = [BOOK] }: { consent: boolean; products?: string[] }) {
    const browser = createHttpBrowser(origin);
    for (const productId of products) expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    const saved = await browser.postJson("/checkout/address", {
      ...TEST_DELIVERY_ADDRESS,
      email,
      ...(consent ? { basketReminders: true } : {}),
    });
    expect(saved.status).toBe(200);
    return browser;
  }
  const remindersTo = (email: string) =>
    getDatabase()
      .db.selectFrom("email_outbox")
      .select(["subject", "text_body", "headers"])
      .where("recipient", "=", email)
      .where("kind", "=", "basket-reminder")
      .orderBy("created_at")
      .execute();
  const linksIn = (text: string) => [...text.matchAll(/https?:\/\/[^\s>\])]+/g)].map((match) => match[0]);

  it("e-mails a guest who ticked it once, RECOVERY_HOURS after the basket's last change, with its lines and a way back", async () => {
    const email = uniqueEmail();
    await guest(email, { consent: true, products: [BOOK, ECHO] });

    await sweepAt(4 * HOUR - 60_000).runOnce();
    expect(await remindersTo(email)).toEqual([]);

    await sweepAt(4 * HOUR + 60_000).runOnce();
    const [reminder, ...more] = await remindersTo(email);
    expect(more).toEqual([]);
    expect(reminder?.subject).toBe("You left something in your basket");
    expect(reminder?.text_body).toContain("$11.96");
    expect(reminder?.text_body).toContain("$98.99");
    expect(reminder?.text_body).toMatch(/Return to your basket/i);
    expect(reminder?.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");

    await sweepAt(4 * HOUR + 120_000).runOnce();
    await sweepAt(2 * DAY).runOnce();
    expect(await remindersTo(email)).toHaveLength(1);
  });

  it("never e-mails a shopper who did not tick it", async () => {
    const email = uniqueEmail();
    await guest(email, { consent: false });
    await sweepAt(5 * HOUR).runOnce();
    expect(await remindersTo(email)).toEqual([]);
  });

  it("never e-mails about a basket that was paid", async () => {
    const email = uniqueEmail();
    const browser = await guest(email, { consent: true });
    const created = await browser.send("/payments/create?total=1196", { method: "POST" });
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
    expect((await browser.postJson("/orders/record", { paymentIntentId: confirmed.body.id })).status).toBe(201);

    await sweepAt(5 * HOUR).runOnce();
    expect(await remindersTo(email)).toEqual([]);
  });

  it("reminds an address at most once in 7 days, and never again once it unsubscribed", async () => {
    const [kept, leaving] = [uniqueEmail(), uniqueEmail()];
    const browsers = [await guest(kept, { consent: true }), await guest(leaving, { consent: true })];
    await sweepAt(5 * HOUR).runOnce();
    const [first] = await remindersTo(leaving);
    expect(await remindersTo(kept)).toHaveLength(1);
    expect(first).toBeDefined();

    // Changed since: each basket is new to remind about, but each address was reminded 5 hours ago.
    for (const browser of browsers)
      expect((await browser.postJson("/basket/add", { productId: ECHO })).status).toBe(201);
    await sweepAt(5 * HOUR).runOnce();
    expect(await remindersTo(kept)).toHaveLength(1);
    expect(await remindersTo(leaving)).toHaveLength(1);

    // A week on (the first reminders dated 8 days back), one address follows its e-mail's unsubscribe link.
    await getDatabase()
      .db.updateTable("basket_reminders")
      .set((eb) => ({ decided_at: eb("decided_at", "-", sql<Date>`interval '8 days'`) }))
      .where("email", "in", [kept, leaving])
      .execute();
    const unsubscribeToken = new URL(
      linksIn(first!.text_body).find((link) => link.includes("/unsubscribe"))!,
    ).searchParams.get("token")!;
    expect(await shop.services.emailPreferences.unsubscribe(unsubscribeToken)).toMatchObject({
      purpose: "basket-reminders",
    });
    for (const browser of browsers)
      expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    await sweepAt(5 * HOUR).runOnce();
    expect(await remindersTo(kept)).toHaveLength(2);
    expect(await remindersTo(leaving)).toHaveLength(1);
  });

  it("writes one e-mail when two sweeps decide the same basket at once", async () => {
    const email = uniqueEmail();
    await guest(email, { consent: true });
    const results = await Promise.all([sweepAt(5 * HOUR).runOnce(), sweepAt(5 * HOUR).runOnce()]);
    expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(1);
    expect(await remindersTo(email)).toHaveLength(1);
  });

  it("brings the basket back in another browser without signing anyone in, and not twice", async () => {
    const email = uniqueEmail();
    await guest(email, { consent: true, products: [ECHO] });
    await sweepAt(5 * HOUR).runOnce();
    const [reminder] = await remindersTo(email);
    const restore = linksIn(reminder!.text_body).find((link) => link.includes("/basket/restore"))!;
    const path = new URL(restore).pathname + new URL(restore).search;

    const elsewhere = createHttpBrowser(origin);
    expect((await elsewhere.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
    const followed = await elsewhere.get(path);
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe("/checkout?basket-link=restored");
    const basket = async () =>
      (
        (await (await elsewhere.get("/basket")).json()) as {
          basket: { items: { product: { id: string }; quantity: number }[] };
        }
      ).basket.items.map((item) => [item.product.id, item.quantity]);
    expect(await basket()).toEqual([
      [BOOK, 1],
      [ECHO, 1],
    ]);
    await elsewhere.get(path);
    expect(await basket()).toEqual([
      [BOOK, 1],
      [ECHO, 1],
    ]);
    const token = elsewhere.cookie!.split("=")[1]!;
    const session = await getDatabase()
      .db.selectFrom("sessions")
      .select("user_id")
      .where("token_hash", "=", sha256Base64url(token))
      .executeTakeFirstOrThrow();
    expect(session.user_id).toBeNull();

    const garbled = await createHttpBrowser(origin).get("/basket/restore?token=nope");
    expect(garbled.headers.get("location")).toBe("/checkout?basket-link=expired");
    const late = await createHttpBrowser(origin).get(path.replace(/token=[^&]+/, `token=${"a".repeat(43)}`));
    expect(late.headers.get("location")).toBe("/checkout?basket-link=expired");
  });

  it("sends the second reminder a day later only when the console turned it on, with its code", async () => {
    const code = `BACK${Date.now()}`.slice(0, 20);
    await shop.services.promotions.create(
      {
        code,
        kind: "percentage",
        value: 10,
        minimumSubtotalCents: 0,
        startsAt: null,
        endsAt: null,
        usageLimit: null,
        oncePerCustomer: false,
        status: "active",
      },
      OPERATOR,
    );
    const withoutSecond = uniqueEmail();
    await guest(withoutSecond, { consent: true });
    await sweepAt(5 * HOUR).runOnce();
    await sweepAt(5 * HOUR + DAY).runOnce();
    expect(await remindersTo(withoutSecond)).toHaveLength(1);

    await shop.services.recoverySettings.save(
      { enabled: true, delayHours: 4, secondReminder: true, secondPromotionCode: code },
      OPERATOR,
    );
    try {
      const email = uniqueEmail();
      await guest(email, { consent: true });
      await sweepAt(5 * HOUR).runOnce();
      await sweepAt(5 * HOUR + DAY - 60_000).runOnce();
      expect(await remindersTo(email)).toHaveLength(1);
      await sweepAt(5 * HOUR + DAY + 60_000).runOnce();
      const [, second] = await remindersTo(email);
      expect(second?.subject).toBe("Your basket is still waiting");
      expect(second?.text_body).toContain(`Use the code ${code} at checkout.`);
      await expect(
        shop.services.recoverySettings.save(
          { enabled: true, delayHours: 4, secondReminder: true, secondPromotionCode: "NO-SUCH-CODE" },
          OPERATOR,
        ),
      ).rejects.toThrow("There is no promotion with that code.");
    } finally {
      await shop.services.recoverySettings.save(
        { enabled: true, delayHours: 4, secondReminder: false, secondPromotionCode: null },
        OPERATOR,
      );
    }
  });

  it("sends nothing while the console has reminders turned off", async () => {
    const email = uniqueEmail();
    await guest(email, { consent: true });
    await shop.services.recoverySettings.save(
      { enabled: false, delayHours: 4, secondReminder: false, secondPromotionCode: null },
      OPERATOR,
    );
    try {
      await sweepAt(5 * HOUR).runOnce();
      expect(await remindersTo(email)).toEqual([]);
    } finally {
      await shop.services.recoverySettings.save(
        { enabled: true, delayHours: 4, secondReminder: false, secondPromotionCode: null },
        OPERATOR,
      );
    }
  });
});
