import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promotionFormSchema } from "#shared/promotion-schemas";
import type { BasketOwner } from "#server/basket/basket-owner";
import {
  addDeliveryAddress,
  confirmCard,
  createHttpBrowser,
  createTestShop,
  TEST_DELIVERY_ADDRESS,
} from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const BOOK = "12321341"; // $11.96
const MONITOR = "4903850"; // $199.99
const OPERATOR = { id: null, email: "owner@console.test" };

/** The console's form as an operator fills it in, defaults for what a story does not name. */
function form(fields: Record<string, string>) {
  const parsed = promotionFormSchema.safeParse({
    kind: "percentage",
    value: "10",
    minimumSubtotal: "",
    startsOn: "",
    endsOn: "",
    usageLimit: "",
    status: "active",
    ...fields,
  });
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return parsed.data;
}

describe("the promotion form", () => {
  const refusal = (fields: Record<string, string>) => {
    const parsed = promotionFormSchema.safeParse({
      code: "SAVE10",
      kind: "percentage",
      value: "10",
      minimumSubtotal: "",
      startsOn: "",
      endsOn: "",
      usageLimit: "",
      status: "active",
      ...fields,
    });
    return parsed.success
      ? null
      : Object.fromEntries(parsed.error.issues.map((issue) => [String(issue.path[0] ?? "form"), issue.message]));
  };

  it("reads a code without regard to case, a percentage, an amount in dollars and cents, and whole days", () => {
    expect(form({ code: " save10 ", minimumSubtotal: "20", usageLimit: "1", endsOn: "2026-12-31" })).toMatchObject({
      code: "SAVE10",
      kind: "percentage",
      value: 10,
      minimumSubtotalCents: 2000,
      usageLimit: 1,
      startsAt: null,
      endsAt: new Date("2027-01-01T00:00:00Z"),
    });
    expect(form({ code: "FIVE-OFF", kind: "amount", value: "$5.50" }).value).toBe(550);
    expect(form({ code: "SHIPFREE", kind: "free-delivery", value: "" }).value).toBe(0);
  });

  it("refuses bad input under its field", () => {
    expect(refusal({ code: "ab" })).toEqual({ code: "A code is letters, digits and hyphens, 3 to 32 long." });
    expect(refusal({ code: "SAVE 10" })).toEqual({ code: "A code is letters, digits and hyphens, 3 to 32 long." });
    expect(refusal({ value: "101" })).toEqual({ value: "A percentage is a whole number from 1 to 100." });
    expect(refusal({ value: "0" })).toEqual({ value: "A percentage is a whole number from 1 to 100." });
    expect(refusal({ kind: "amount", value: "5.555" })).toEqual({
      value: "Enter an amount in dollars and cents, like 5.00.",
    });
    expect(refusal({ usageLimit: "0" })).toEqual({
      usageLimit: "Total uses is a whole number from 1 to 1,000,000, or empty for no limit.",
    });
    expect(refusal({ startsOn: "2026-12-02", endsOn: "2026-12-01" })).toEqual({
      endsOn: "Ends must be on or after Starts.",
    });
    expect(refusal({ extra: "1" })).not.toBeNull();
  });
});

/**
 * Codes through the shop's own HTTP routes, the Stripe SDK and the built-in processor: each refusal's sentence, the
 * discount paid and recorded, a basket that drops under the minimum, free delivery, a $0.00 order without a card,
 * twenty shoppers racing for a one-use code, and a payment that outlived its hold.
 */
describeEachDatabase("promotion codes", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createTestShop>>;
  let origin = "";
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(() => close());

  type Browser = ReturnType<typeof createHttpBrowser>;
  const shopperWith = async (productId: string, quantity = 1) => {
    const browser = createHttpBrowser(origin);
    for (let added = 0; added < quantity; added++)
      expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    await addDeliveryAddress(browser);
    return browser;
  };
  const apply = async (browser: Browser, code: string) => {
    const response = await browser.postJson("/checkout/promotion", { code });
    const body = (await response.json()) as { code?: string; error?: { message: string } };
    return { status: response.status, message: body.error?.message ?? null };
  };
  const create = async (browser: Browser, total: number) => {
    const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
    return {
      status: response.status,
      body: (await response.json()) as { clientSecret?: string; error?: { code: string; message: string } },
    };
  };
  const pay = async (browser: Browser, clientSecret: string) => {
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    const paymentIntentId = confirmed.body.id ?? "";
    expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBe(201);
    return paymentIntentId;
  };
  const ownerOf = async (browser: Browser): Promise<BasketOwner> => {
    const session = await shop.services.sessions.findSession(
      decodeURIComponent((browser.cookie ?? "").split("=")[1] ?? ""),
    );
    if (!session) throw new Error("no session");
    return session.user ? { userId: session.user.id } : { sessionId: session.id };
  };
  const redemptions = async (code: string) =>
    (
      await getDatabase()
        .db.selectFrom("promotion_uses")
        .innerJoin("promotions", "promotions.id", "promotion_uses.promotion_id")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("promotions.code", "=", code)
        .where("promotion_uses.redeemed_at", "is not", null)
        .executeTakeFirstOrThrow()
    ).n;

  it("SAVE10 takes 10% off the $199.99 monitor: $179.99 paid, and the order keeps the code, its type and the discount", async () => {
    await shop.services.promotions.create(form({ code: "SAVE10", minimumSubtotal: "20", usageLimit: "1" }), OPERATOR);
    const buyer = await shopperWith(MONITOR);
    expect(await apply(buyer, "save10")).toEqual({ status: 200, message: null });
    const { pricing } = await shop.services.checkout.priceCheckout(await ownerOf(buyer));
    expect(pricing).toMatchObject({
      itemsCents: 19999,
      discountCents: 2000,
      totalCents: 17999,
      promotion: { code: "SAVE10", kind: "percentage" },
    });
    const created = await create(buyer, 17999);
    expect(created.status).toBe(201);
    const orderId = await pay(buyer, created.body.clientSecret!);
    const order = await getDatabase()
      .db.selectFrom("orders")
      .select(["amount_cents", "promotion_code", "promotion_kind", "discount_cents", "promotion_over_limit"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({
      amount_cents: 17999,
      promotion_code: "SAVE10",
      promotion_kind: "percentage",
      discount_cents: 2000,
      promotion_over_limit: false,
    });
    expect(await redemptions("SAVE10")).toBe(1);
    // The confirmation e-mail names the code and the discount.
    const mail = await getDatabase()
      .db.selectFrom("email_outbox")
      .select(["text_body"])
      .where("dedupe_key", "=", `order-confirmation:${orderId}`)
      .executeTakeFirstOrThrow();
    expect(mail.text_body).toContain("SAVE10 -$20.00");

    // The one use is gone: the next shopper is told so, and nothing is applied.
    const second = await shopperWith(MONITOR);
    expect(await apply(second, "SAVE10")).toEqual({ status: 409, message: "This code has already been used." });
    expect((await shop.services.checkout.priceCheckout(await ownerOf(second))).pricing.promotion).toBeNull();
    // A used code can be paused, not deleted.
    const saved = (await shop.services.promotions.list()).find((promotion) => promotion.code === "SAVE10")!;
    expect(saved).toMatchObject({ uses: 1, redemptions: 1, usageLimit: 1 });
    await expect(shop.services.promotions.remove(saved.id, OPERATOR)).rejects.toMatchObject({
      message: "A code that has been used can be paused but not deleted.",
    });
  });

  it("refuses unknown, paused, not yet started, ended and under-the-minimum codes with their sentences, changing nothing", async () => {
    const { promotions } = shop.services;
    await promotions.create(form({ code: "PAUSED", status: "paused" }), OPERATOR);
    await promotions.create(form({ code: "LATER", startsOn: "2999-01-01" }), OPERATOR);
    await promotions.create(form({ code: "OVER", startsOn: "2020-01-01", endsOn: "2020-12-31" }), OPERATOR);
    await promotions.create(form({ code: "BIGSPEND", minimumSubtotal: "50" }), OPERATOR);
    const buyer = await shopperWith(BOOK);
    expect(await apply(buyer, "NOSUCHCODE")).toEqual({ status: 409, message: "This code isn't valid." });
    expect(await apply(buyer, "paused")).toEqual({ status: 409, message: "This code isn't valid." });
    expect(await apply(buyer, "LATER")).toEqual({ status: 409, message: "This code has expired." });
    expect(await apply(buyer, "OVER")).toEqual({ status: 409, message: "This code has expired." });
    expect(await apply(buyer, "BIGSPEND")).toEqual({ status: 409, message: "Spend $38.04 more to use this code." });
    const { pricing, removedPromotion } = await shop.services.checkout.priceCheckout(await ownerOf(buyer));
    expect(pricing).toMatchObject({ totalCents: 1196, promotion: null });
    expect(removedPromotion).toBeNull();
    // Each change went into the audit log.
    const actions = await getDatabase()
      .db.selectFrom("audit_log")
      .select("subject")
      .where("action", "=", "promotion.create")
      .execute();
    expect(actions.map((entry) => entry.subject)).toEqual(
      expect.arrayContaining(["SAVE10", "PAUSED", "LATER", "OVER", "BIGSPEND"]),
    );
    // Codes are unique without regard to case.
    await expect(promotions.create(form({ code: "bigspend" }), OPERATOR)).rejects.toMatchObject({
      message: "A promotion with this code exists already.",
    });
  });

  it("takes the code off when the basket drops under its minimum, and says why", async () => {
    await shop.services.promotions.create(
      form({ code: "TWOBOOKS", kind: "amount", value: "2", minimumSubtotal: "20" }),
      OPERATOR,
    );
    const buyer = await shopperWith(BOOK, 2);
    expect(await apply(buyer, "TWOBOOKS")).toEqual({ status: 200, message: null });
    const owner = await ownerOf(buyer);
    expect((await shop.services.checkout.priceCheckout(owner)).pricing).toMatchObject({
      itemsCents: 2392,
      discountCents: 200,
      totalCents: 2192,
    });
    expect((await buyer.postJson("/basket/quantity", { productId: BOOK, quantity: 1 })).status).toBeLessThan(300);
    const after = await shop.services.checkout.priceCheckout(owner);
    expect(after.removedPromotion).toEqual({ code: "TWOBOOKS", message: "Spend $8.04 more to use this code." });
    expect(after.pricing).toMatchObject({ totalCents: 1196, promotion: null });
    // Taken off for good: the next view says nothing more.
    expect((await shop.services.checkout.priceCheckout(owner)).removedPromotion).toBeNull();
  });

  it("makes every delivery option $0.00 with a free-delivery code", async () => {
    const { shipping } = shop.services;
    const zone = (await shipping.listZones())[0]!;
    const standard = zone.methods[0]!;
    await shipping.updateMethod(OPERATOR, standard.id, {
      name: standard.name,
      estimate: standard.estimate,
      priceCents: 599,
      freeOverCents: null,
      weightTiers: [],
    });
    const express = await shipping.addMethod(OPERATOR, zone.id, {
      name: "Express delivery",
      estimate: "1-2 business days",
      priceCents: 1499,
      freeOverCents: null,
      weightTiers: [],
    });
    try {
      await shop.services.promotions.create(form({ code: "SHIPFREE", kind: "free-delivery", value: "" }), OPERATOR);
      const buyer = await shopperWith(BOOK);
      expect((await shop.services.checkout.priceCheckout(await ownerOf(buyer))).pricing.totalCents).toBe(1795);
      expect(await apply(buyer, "SHIPFREE")).toEqual({ status: 200, message: null });
      const { pricing, byOption } = await shop.services.checkout.priceCheckout(await ownerOf(buyer));
      expect(pricing.deliveryOptions.map((option) => option.priceCents)).toEqual([0, 0]);
      expect(pricing).toMatchObject({
        shippingCents: 0,
        discountCents: 0,
        totalCents: 1196,
        promotion: { code: "SHIPFREE", kind: "free-delivery" },
      });
      expect(byOption[express]?.totalCents).toBe(1196);
    } finally {
      await shipping.removeMethod(OPERATOR, express);
      await shipping.updateMethod(OPERATOR, standard.id, {
        name: standard.name,
        estimate: standard.estimate,
        priceCents: 0,
        freeOverCents: null,
        weightTiers: [],
      });
    }
  });

  it("places a $0.00 order without a card, once for a double click, with payment 'none' and its confirmation e-mail", async () => {
    await shop.services.promotions.create(form({ code: "ONUS", value: "100", usageLimit: "5" }), OPERATOR);
    const buyer = await shopperWith(BOOK);
    expect(await apply(buyer, "ONUS")).toEqual({ status: 200, message: null });
    const owner = await ownerOf(buyer);
    const { pricing, freeOrderToken } = await shop.services.checkout.priceCheckout(owner);
    expect(pricing.totalCents).toBe(0);
    expect(freeOrderToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // No card payment for nothing.
    expect((await create(buyer, 0)).status).toBe(409);
    const [first, second] = await Promise.all([
      shop.services.checkout.placeFreeOrder(owner, freeOrderToken!),
      shop.services.checkout.placeFreeOrder(owner, freeOrderToken!),
    ]);
    expect(first.orderNumber).toBe(second.orderNumber);
    expect([first.isNew, second.isNew].filter(Boolean)).toHaveLength(1);
    const orders = await getDatabase()
      .db.selectFrom("orders")
      .select(["amount_cents", "processor", "discount_cents", "promotion_code"])
      .where("id", "=", first.orderId)
      .execute();
    expect(orders).toEqual([{ amount_cents: 0, processor: "none", discount_cents: 1196, promotion_code: "ONUS" }]);
    expect(await redemptions("ONUS")).toBe(1);
    const mails = await getDatabase()
      .db.selectFrom("email_outbox")
      .select("id")
      .where("dedupe_key", "=", `order-confirmation:${first.orderId}`)
      .execute();
    expect(mails).toHaveLength(1);
    expect((await shop.services.basket.getBasket(owner)).count).toBe(0);
    // A token for another basket places nothing.
    await expect(shop.services.checkout.placeFreeOrder(owner, "x".repeat(43))).rejects.toMatchObject({
      code: "BASKET_EMPTY",
    });
  });

  it("refuses a code that leaves between $0.01 and $0.49 to pay", async () => {
    await shop.services.promotions.create(form({ code: "ALMOST", kind: "amount", value: "11.50" }), OPERATOR);
    const buyer = await shopperWith(BOOK);
    expect(await apply(buyer, "ALMOST")).toEqual({
      status: 409,
      message: "This code can't be used on an order this small.",
    });
  });

  it("gives a one-use code to exactly one of twenty shoppers paying at once; the others are told before any card is charged", async () => {
    await shop.services.promotions.create(form({ code: "ONLYONE", usageLimit: "1" }), OPERATOR);
    const buyers = await Promise.all(Array.from({ length: 20 }, () => shopperWith(BOOK)));
    for (const buyer of buyers) expect(await apply(buyer, "ONLYONE")).toEqual({ status: 200, message: null });
    const answers = await Promise.all(buyers.map((buyer) => create(buyer, 1076)));
    const winners = answers.filter((answer) => answer.status === 201);
    expect(winners).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => answer.body.error?.message)).toEqual(
      Array(19).fill("This code has already been used."),
    );
    const winner = buyers[answers.indexOf(winners[0]!)]!;
    await pay(winner, winners[0]!.body.clientSecret!);
    expect(await redemptions("ONLYONE")).toBe(1);
    const discounted = await getDatabase()
      .db.selectFrom("orders")
      .select("id")
      .where("promotion_code", "=", "ONLYONE")
      .execute();
    expect(discounted).toHaveLength(1);
  });

  it("records a payment that outlived its hold at the discount shown, and marks it over the limit when the use went elsewhere", async () => {
    await shop.services.promotions.create(form({ code: "LATEPAY", usageLimit: "1" }), OPERATOR);
    const slow = await shopperWith(BOOK);
    expect(await apply(slow, "LATEPAY")).toEqual({ status: 200, message: null });
    const slowIntent = await create(slow, 1076);
    expect(slowIntent.status).toBe(201);
    // The slow shopper's hold lapses; another takes the use and pays.
    await getDatabase()
      .db.updateTable("promotion_uses")
      .set({ expires_at: sql<Date>`now() - interval '1 minute'` })
      .where("redeemed_at", "is", null)
      .execute();
    const quick = await shopperWith(BOOK);
    expect(await apply(quick, "LATEPAY")).toEqual({ status: 200, message: null });
    const quickIntent = await create(quick, 1076);
    await pay(quick, quickIntent.body.clientSecret!);
    // Then the slow one's card goes through: a paid order is never lost or changed.
    const orderId = await pay(slow, slowIntent.body.clientSecret!);
    const order = await getDatabase()
      .db.selectFrom("orders")
      .select(["amount_cents", "discount_cents", "promotion_over_limit"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ amount_cents: 1076, discount_cents: 120, promotion_over_limit: true });
    expect(await redemptions("LATEPAY")).toBe(2);
  });

  it("keeps a once-per-customer code to one order per receipt e-mail", async () => {
    await shop.services.promotions.create(form({ code: "WELCOME", oncePerCustomer: "on" }), OPERATOR);
    const first = await shopperWith(BOOK);
    expect(await apply(first, "WELCOME")).toEqual({ status: 200, message: null });
    const created = await create(first, 1076);
    await pay(first, created.body.clientSecret!);
    // Another browser, the same receipt e-mail (addDeliveryAddress's).
    const again = await shopperWith(BOOK);
    expect(await apply(again, "WELCOME")).toEqual({ status: 409, message: "This code has already been used." });
  });

  it("gives a once-per-customer code to one of four sessions paying at once with one e-mail, whatever its capitals or +tag", async () => {
    await shop.services.promotions.create(form({ code: "ONCEEACH", oncePerCustomer: "on" }), OPERATOR);
    const emails = ["grace@example.com", "Grace@Example.com", "grace+1@example.com", "GRACE+shop@example.com"];
    const buyers = [];
    for (const email of emails) {
      const browser = createHttpBrowser(origin);
      expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
      expect((await browser.postJson("/checkout/address", { ...TEST_DELIVERY_ADDRESS, email })).status).toBe(200);
      expect(await apply(browser, "ONCEEACH")).toEqual({ status: 200, message: null });
      buyers.push(browser);
    }
    const answers = await Promise.all(buyers.map((buyer) => create(buyer, 1076)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 201).map((answer) => answer.body.error?.message)).toEqual(
      Array(3).fill("This code has already been used."),
    );
  });
});
