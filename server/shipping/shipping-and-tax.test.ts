import { afterAll, beforeAll, expect, it } from "vitest";
import type { PriceBreakdown } from "#shared/pricing";
import {
  addDeliveryAddress,
  confirmCard,
  createHttpBrowser,
  createTestShop,
  TEST_DELIVERY_ADDRESS,
} from "#server/testing/test-app";
import { describeEachDatabase, withTwoInstances } from "#server/testing/test-database";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99
const OPERATOR = { id: null, email: "owner@console.test" };

/**
 * Delivery options and sales tax through the shop's own HTTP routes, the Stripe SDK and the built-in processor: the
 * fresh shop's single free zone, the operator's rates of the story (Standard $5.99 free over $35, Express $14.99,
 * California 7.25 % without shipping), what a Californian pays, a country taken out of the zone, a rate changed while
 * a shopper is paying, and the order's recorded breakdown.
 */
describeEachDatabase("delivery options and sales tax", (getDatabase) => {
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
  const shopperWith = async (productId: string, address: Record<string, string> = {}) => {
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId })).status).toBe(201);
    if (Object.keys(address).length === 0) await addDeliveryAddress(browser);
    else
      expect((await browser.postJson("/checkout/address", { ...TEST_DELIVERY_ADDRESS, ...address })).status).toBe(200);
    return browser;
  };
  const create = async (browser: Browser, total: number) => {
    const response = await browser.send(`/payments/create?total=${total}`, { method: "POST" });
    return {
      status: response.status,
      body: (await response.json()) as {
        clientSecret?: string;
        error?: { code: string; message: string; details?: { totalCents?: number } };
      },
    };
  };
  const everywhere = async () => (await shop.services.shipping.listZones()).find((zone) => zone.name === "Everywhere")!;

  it("starts with one zone, Everywhere, covering every country of the address form with free Standard delivery", async () => {
    const zones = await shop.services.shipping.listZones();
    expect(zones).toHaveLength(1);
    expect(zones[0]).toMatchObject({
      name: "Everywhere",
      states: [],
      methods: [{ name: "Standard delivery", priceCents: 0, freeOverCents: null }],
    });
    expect(zones[0]!.countries).toHaveLength(19);
    expect(await shop.services.shipping.listTaxRates()).toEqual([]);
    // So a fresh shop charges what it always did: the items.
    const browser = await shopperWith(BOOK);
    expect((await create(browser, 1196)).status).toBe(201);
  });

  it("refuses a country or a US state already in another zone, naming that zone, and changes nothing", async () => {
    const { shipping } = shop.services;
    await expect(
      shipping.createZone(OPERATOR, { name: "North America", countries: ["CA", "MX"], states: [] }),
    ).rejects.toMatchObject({
      code: "ALREADY_IN_ZONE",
      message: "Canada is already in the zone “Everywhere”.",
      details: { field: "countries" },
    });
    expect(await shipping.listZones()).toHaveLength(1);
    const zone = await everywhere();
    await shipping.updateZone(OPERATOR, zone.id, {
      name: "Everywhere",
      countries: zone.countries.filter((code) => code !== "US"),
      states: [],
    });
    const far = await shipping.createZone(OPERATOR, { name: "Far states", countries: ["US"], states: ["AK", "HI"] });
    await expect(
      shipping.createZone(OPERATOR, { name: "Islands", countries: ["US"], states: ["HI"] }),
    ).rejects.toMatchObject({ message: "Hawaii is already in the zone “Far states”." });
    await expect(
      shipping.createZone(OPERATOR, { name: "All US", countries: ["US"], states: [] }),
    ).rejects.toMatchObject({ message: "United States is already in the zone “Far states”." });
    // Put things back as the seed had them.
    await shipping.removeZone(OPERATOR, far);
    await shipping.updateZone(OPERATOR, zone.id, { name: "Everywhere", countries: [...zone.countries], states: [] });
    const actions = await getDatabase()
      .db.selectFrom("audit_log")
      .select("action")
      .where("action", "like", "shipping.zone.%")
      .execute();
    expect(actions.map((entry) => entry.action)).toEqual([
      "shipping.zone.update",
      "shipping.zone.create",
      "shipping.zone.remove",
      "shipping.zone.update",
    ]);
  });

  it("charges a Californian $27.82 for the book by Express and $106.17 for the Echo by free Standard; the order keeps the breakdown", async () => {
    const { shipping } = shop.services;
    const zone = await everywhere();
    const standard = zone.methods[0]!;
    await shipping.updateMethod(OPERATOR, standard.id, {
      name: "Standard delivery",
      estimate: "3-5 business days",
      priceCents: 599,
      freeOverCents: 3500,
      weightTiers: [],
    });
    const express = await shipping.addMethod(OPERATOR, zone.id, {
      name: "Express delivery",
      estimate: "1-2 business days",
      priceCents: 1499,
      freeOverCents: null,
      weightTiers: [],
    });
    await shipping.addTaxRate(OPERATOR, { country: "US", state: "CA", rate: 7250, taxesShipping: false });

    const bookBuyer = await shopperWith(BOOK);
    // The cheapest option is the default: 11.96 + 5.99 + 0.87.
    const stale = await create(bookBuyer, 1196);
    expect(stale.status).toBe(409);
    expect(stale.body.error?.message).toBe("The total has changed to $18.82. Please check it and pay again.");
    expect((await bookBuyer.postJson("/checkout/delivery-option", { methodId: express })).status).toBe(200);
    const created = await create(bookBuyer, 2782);
    expect(created.status).toBe(201);

    const confirmed = await confirmCard(
      origin,
      created.body.clientSecret ?? "",
      shop.processorKeys!.publishableKey,
      "4242424242424242",
    );
    const paymentIntentId = confirmed.body.id ?? "";
    const intent = await shop.services.provider.retrieveIntent(paymentIntentId);
    expect(intent.amountCents).toBe(2782);
    expect(intent.metadata).toMatchObject({
      storefront_items_cents: "1196",
      storefront_shipping_cents: "1499",
      storefront_shipping_method: "Express delivery",
      storefront_discount_cents: "0",
      storefront_tax_cents: "87",
      storefront_total_cents: "2782",
    });
    expect((await bookBuyer.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
    const order = await getDatabase()
      .db.selectFrom("orders")
      .select(["amount_cents", "pricing"])
      .where("id", "=", paymentIntentId)
      .executeTakeFirstOrThrow();
    expect(order.amount_cents).toBe(2782);
    expect(order.pricing).toMatchObject({
      itemsCents: 1196,
      shippingCents: 1499,
      discountCents: 0,
      taxCents: 87,
      totalCents: 2782,
      shipping: { name: "Express delivery", priceCents: 1499 },
      taxes: [{ country: "US", state: "CA", rate: 7250, amountCents: 87 }],
    } satisfies Partial<Record<keyof PriceBreakdown, unknown>>);

    const echoBuyer = await shopperWith(ECHO);
    expect((await create(echoBuyer, 10617)).status).toBe(201);
  });

  it("re-prices Buy Now when the operator changes a rate meanwhile: 409 with the new total, before any card is charged", async () => {
    const browser = await shopperWith(BOOK);
    expect((await create(browser, 1882)).status).toBe(201);
    const rate = (await shop.services.shipping.listTaxRates()).find((candidate) => candidate.state === "CA")!;
    await shop.services.shipping.updateTaxRate(OPERATOR, rate.id, { rate: 10_000, taxesShipping: false });
    const again = await create(browser, 1882);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      message: "The total has changed to $19.15. Please check it and pay again.",
      details: { totalCents: 1915 },
    });
    await shop.services.shipping.updateTaxRate(OPERATOR, rate.id, { rate: 7250, taxesShipping: false });
  });

  it("answers 400 with the sentence for a country taken out of every zone", async () => {
    const zone = await everywhere();
    await shop.services.shipping.updateZone(OPERATOR, zone.id, {
      name: zone.name,
      countries: zone.countries.filter((code) => code !== "CA"),
      states: [],
    });
    const browser = await shopperWith(BOOK, { country: "CA", region: "ON", city: "Toronto", postalCode: "M5V 2T6" });
    const count = async () =>
      (
        await getDatabase()
          .db.selectFrom("checkout_payments")
          .select((select) => select.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await count();
    const refused = await create(browser, 1196);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "NOT_DELIVERABLE", message: "We don't deliver to Canada yet" });
    expect(await count()).toBe(before);
  });
});

it.runIf(process.env.TEST_DATABASE_URL)(
  "two instances on one PostgreSQL: a rate changed through one is what the other quotes within a few seconds",
  () =>
    withTwoInstances("rates", async (databases) => {
      const first = await createTestShop(databases[0]);
      const second = await createTestShop(databases[1]);
      const californiaRate = async () =>
        (await second.services.shipping.loadRates()).taxRates.find((rate) => rate.state === "CA")?.rate;
      await first.services.shipping.addTaxRate(OPERATOR, {
        country: "US",
        state: "CA",
        rate: 7250,
        taxesShipping: false,
      });
      await expect.poll(californiaRate, { timeout: 5_000, interval: 100 }).toBe(7250);
      // Kept by the second instance: asked again, it quotes the same rate.
      expect(await californiaRate()).toBe(7250);
      const [rate] = await first.services.shipping.listTaxRates();
      await first.services.shipping.updateTaxRate(OPERATOR, rate!.id, { rate: 8000, taxesShipping: false });
      const changedAt = Date.now();
      await expect.poll(californiaRate, { timeout: 5_000, interval: 100 }).toBe(8000);
      expect(Date.now() - changedAt).toBeLessThan(3_000);
      // The instance that made the change quotes it at once.
      await first.services.shipping.updateTaxRate(OPERATOR, rate!.id, { rate: 9000, taxesShipping: false });
      expect((await first.services.shipping.loadRates()).taxRates.find((each) => each.state === "CA")?.rate).toBe(9000);
    }),
  120_000,
);
