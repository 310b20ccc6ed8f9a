import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DB } from "#server/db/client";
import { addDeliveryAddress, confirmCard, createHttpBrowser, createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import { startTwoInstances } from "#server/testing/two-instances";
import { ORDER_ACCESS_PARAM } from "#server/orders/order-access";

/**
 * Returns through the real checkout, the built-in processor and the outbox: a shopper returns some units, the operator
 * decides, receives (the undamaged units back in stock, once) and refunds by the refund function's figure; a
 * replacement is a $0.00 order linked to its return; a guest reaches the order by its signed link.
 */

const BOOK = "12321341"; // $11.96, its only variant's id is the product's
const OPERATOR = { id: null, email: "owner@returns.test" };
let counter = 0;
const newKey = () => `returns-${Date.now()}-${++counter}`;

/** A guest buys books through the real checkout; the order's id (its intent's). */
async function buy(origin: string, publishableKey: string, quantity: number) {
  const browser = createHttpBrowser(origin);
  expect((await browser.postJson("/basket/add", { productId: BOOK })).status).toBe(201);
  if (quantity > 1)
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity })).status).toBeLessThan(300);
  await addDeliveryAddress(browser);
  const created = await browser.send(`/payments/create?total=${1196 * quantity}`, { method: "POST" });
  expect(created.status).toBe(201);
  const { clientSecret } = (await created.json()) as { clientSecret: string };
  const confirmed = await confirmCard(origin, clientSecret, publishableKey, "4242424242424242");
  const paymentIntentId = confirmed.body.id ?? "";
  expect((await browser.postJson("/orders/record", { paymentIntentId })).status).toBeLessThan(300);
  return paymentIntentId;
}

async function fulfilment(db: DB, orderId: string): Promise<string> {
  const row = await db
    .selectFrom("orders")
    .select("fulfilment_status")
    .where("id", "=", orderId)
    .executeTakeFirstOrThrow();
  return row.fulfilment_status;
}

async function onHand(db: DB, variantId = BOOK): Promise<number> {
  const row = await db
    .selectFrom("product_variants")
    .select("on_hand")
    .where("id", "=", variantId)
    .executeTakeFirstOrThrow();
  return row.on_hand;
}

async function subjects(db: DB, orderId: string): Promise<string[]> {
  const order = await db
    .selectFrom("orders")
    .select("contact_email")
    .where("id", "=", orderId)
    .executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom("email_outbox")
    .select(["subject", "created_at"])
    .where("recipient", "=", order.contact_email!)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => row.subject);
}

type Shop = Awaited<ReturnType<typeof createTestShop>>;

async function setStock(shop: Shop, db: DB, variantId: string, quantity: number) {
  await db
    .transaction()
    .execute((trx) =>
      shop.services.inventory.setStock(
        trx,
        variantId,
        { tracksStock: true, continueSelling: false, onHand: quantity },
        OPERATOR.email,
      ),
    );
}

async function ship(shop: Shop, orderId: string) {
  const number = (await shop.services.orders.findOrderNumber(orderId))!;
  await shop.services.adminOrders.markShipped(OPERATOR, number, { carrier: "UPS", trackingNumber: newKey() });
  return number;
}

describeEachDatabase("returns", (getDatabase) => {
  let shop: Shop;
  let origin = "";
  let close: () => Promise<void> = async () => {};
  const db = () => getDatabase().db;

  beforeAll(async () => {
    shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    origin = `http://127.0.0.1:${running.port}`;
    close = running.close;
  });
  afterAll(() => close());

  it("returns 1 of 2: asked, approved, received, refunded by the same figure, each e-mail once", async () => {
    await setStock(shop, db(), BOOK, 2);
    const orderId = await buy(origin, shop.processorKeys!.publishableKey, 2);
    const { returns } = shop.services;
    expect((await returns.shopperReturns(orderId)).canRequest).toBe(false);
    const number = await ship(shop, orderId);
    const view = await returns.shopperReturns(orderId);
    expect(view.canRequest).toBe(true);
    expect(view.lines[0]).toMatchObject({ returnable: 2, replacements: [] });

    const line = {
      index: 0,
      quantity: 1,
      reason: "changed_mind" as const,
      resolution: "refund" as const,
      replacementVariantId: null,
    };
    const figure = await returns.quoteReturnRequest(orderId, [line]);
    expect(figure).toBeGreaterThan(0);
    const key = newKey();
    const opened = await returns.requestReturn(orderId, [line], key);
    expect(opened).toMatchObject({ number: `${number}-R1`, refundCents: figure, isNew: true });
    // The same form again (a double submit): the same return, no second e-mail.
    expect(await returns.requestReturn(orderId, [line], key)).toMatchObject({ number: `${number}-R1`, isNew: false });
    expect((await returns.shopperReturns(orderId)).lines[0]!.returnable).toBe(1);
    await expect(returns.requestReturn(orderId, [{ ...line, quantity: 2 }], newKey())).rejects.toMatchObject({
      message: expect.stringMatching(/^You can return at most 1 of The Lean Startup/),
    });

    const listed = await returns.listReturns();
    expect(listed[0]).toMatchObject({ number: opened.number, status: "requested" });
    await returns.approve(OPERATOR, opened.number);
    await expect(returns.approve(OPERATOR, opened.number)).rejects.toMatchObject({
      message: `Return ${opened.number} is approved, so it cannot be approved.`,
    });
    expect(await onHand(db())).toBe(0);
    expect(await fulfilment(db(), orderId)).toBe("shipped");
    await returns.markReceived(OPERATOR, opened.number, 0, { received: 1, damaged: 0 });
    expect(await onHand(db())).toBe(1);
    expect(await fulfilment(db(), orderId)).toBe("partially_returned");
    await expect(returns.markReceived(OPERATOR, opened.number, 0, { received: 1, damaged: 0 })).rejects.toThrow();
    expect(await onHand(db())).toBe(1);
    // A return can be cancelled at any status before Received, and nothing else.
    await expect(returns.cancel(OPERATOR, opened.number)).rejects.toMatchObject({
      message: `Return ${opened.number} is received, so it cannot be cancelled.`,
    });

    const detail = await returns.getReturn(opened.number);
    expect(detail?.figure.totalCents).toBe(figure);
    expect(await returns.refund(OPERATOR, opened.number)).toEqual({ amountCents: figure });
    expect(await returns.refund(OPERATOR, opened.number).catch((error: Error) => error.message)).toBe(
      `Return ${opened.number} is refunded, so it cannot be refunded.`,
    );
    const order = await db()
      .selectFrom("orders")
      .select(["refunded_cents", "payment_status"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ refunded_cents: figure, payment_status: "partially_refunded" });
    // The refund moves the money's status only: the goods' stays what the receipt made it.
    expect(await fulfilment(db(), orderId)).toBe("partially_returned");
    expect((await returns.getReturn(opened.number))?.status).toBe("refunded");
    const sent = await subjects(db(), orderId);
    expect(sent.filter((subject) => subject === "We received your return request")).toHaveLength(1);
    expect(sent.filter((subject) => subject === "Your return is approved")).toHaveLength(1);
    expect(sent.filter((subject) => subject.includes("refund for order"))).toHaveLength(1);
    expect(sent).not.toContain("Your return was cancelled");
  });

  it("declines with a message, and cancels before Received", async () => {
    await setStock(shop, db(), BOOK, 2);
    const orderId = await buy(origin, shop.processorKeys!.publishableKey, 2);
    await ship(shop, orderId);
    const { returns } = shop.services;
    const line = {
      index: 0,
      quantity: 1,
      reason: "other" as const,
      resolution: "refund" as const,
      replacementVariantId: null,
    };
    const first = await returns.requestReturn(orderId, [line], newKey());
    await expect(returns.decline(OPERATOR, first.number, "  ")).rejects.toMatchObject({
      message: "Write a message to the shopper saying why.",
    });
    await returns.decline(OPERATOR, first.number, "This item was sold as final sale.");
    const declined = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("subject", "=", "Your return was declined")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(declined.text_body).toContain("This item was sold as final sale.");
    // Declined units may be asked for again.
    const second = await returns.requestReturn(orderId, [{ ...line, quantity: 2 }], newKey());
    await returns.approve(OPERATOR, second.number);
    await returns.cancel(OPERATOR, second.number);
    await expect(returns.cancel(OPERATOR, second.number)).rejects.toMatchObject({
      message: `Return ${second.number} is cancelled, so it cannot be cancelled.`,
    });
    expect((await returns.getReturn(second.number))?.status).toBe("cancelled");
    const cancelled = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("subject", "=", "Your return was cancelled")
      .where("text_body", "like", `%${second.number}%`)
      .execute();
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.text_body).toContain("Please do not send these items.");
    expect(await fulfilment(db(), orderId)).toBe("shipped");
    expect((await returns.shopperReturns(orderId)).lines[0]!.returnable).toBe(2);
  });

  it("replaces a unit with another option of the same product by a $0.00 order linked to the return", async () => {
    const ECHO = "23445930"; // $98.99
    const variant = (key: string, priceCents: number | null) => ({
      key,
      optionValues: [key],
      sku: null,
      priceCents,
      compareAtCents: null,
      tracksStock: true,
      continueSelling: false,
      onHand: 3,
      weightGrams: 0,
      removePicture: false,
    });
    const ids = await db()
      .transaction()
      .execute((trx) =>
        shop.services.catalogue.saveOptionsAndVariants(trx, ECHO, 9899, {
          options: [{ name: "Colour", values: ["Black", "White", "Gold"] }],
          variants: [variant("Black", null), variant("White", 8999), variant("Gold", 12999)],
        }),
      );
    for (const id of ids.values()) await setStock(shop, db(), id, 3);
    const black = ids.get("Black")!;
    const white = ids.get("White")!;
    const browser = createHttpBrowser(origin);
    expect((await browser.postJson("/basket/add", { productId: ECHO, variantId: black })).status).toBe(201);
    await addDeliveryAddress(browser);
    const created = await browser.send("/payments/create?total=9899", { method: "POST" });
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const confirmed = await confirmCard(origin, clientSecret, shop.processorKeys!.publishableKey, "4242424242424242");
    const orderId = confirmed.body.id ?? "";
    expect((await browser.postJson("/orders/record", { paymentIntentId: orderId })).status).toBeLessThan(300);
    await ship(shop, orderId);

    const { returns } = shop.services;
    // Another option in stock at the same price or lower: White, not Gold.
    expect((await returns.shopperReturns(orderId)).lines[0]!.replacements).toEqual([
      { variantId: white, label: "Colour: White", priceCents: 8999 },
    ]);
    const line = {
      index: 0,
      quantity: 1,
      reason: "wrong_item" as const,
      resolution: "replace" as const,
      replacementVariantId: white,
    };
    // The difference is refunded: $98.99 paid, $89.99 sent instead: $9.00.
    expect(await returns.quoteReturnRequest(orderId, [line])).toBe(900);
    await expect(
      returns.requestReturn(orderId, [{ ...line, replacementVariantId: ids.get("Gold")! }], newKey()),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^Choose the option to replace Amazon Echo/) });
    const opened = await returns.requestReturn(orderId, [line], newKey());
    await returns.approve(OPERATOR, opened.number);
    await returns.markReceived(OPERATOR, opened.number, 0, { received: 1, damaged: 1 });
    expect(await onHand(db(), black)).toBe(2);
    // Its one unit is back (damaged, but back): the order is Returned.
    expect(await fulfilment(db(), orderId)).toBe("returned");
    const made = await returns.replace(OPERATOR, opened.number);
    expect(made.differenceCents).toBe(900);
    expect(await returns.replace(OPERATOR, opened.number).catch((error: Error) => error.message)).toBe(
      `Return ${opened.number} is refunded, so it cannot be replaced.`,
    );
    const replacement = await db()
      .selectFrom("orders")
      .select(["amount_cents", "processor", "items", "fulfilment_status", "replaces_return_id", "contact_email"])
      .where("number", "=", made.orderNumber)
      .executeTakeFirstOrThrow();
    expect(replacement).toMatchObject({
      amount_cents: 0,
      processor: "none",
      fulfilment_status: "unfulfilled",
      items: [expect.objectContaining({ variantId: white, quantity: 1, priceCents: 0 })],
    });
    expect(await onHand(db(), white)).toBe(2);
    const detail = await returns.getReturn(opened.number);
    expect(detail).toMatchObject({ status: "refunded", replacementOrderNumber: made.orderNumber });
    const paid = await db()
      .selectFrom("orders")
      .select("refunded_cents")
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    expect(paid.refunded_cents).toBe(900);
  });

  it("a guest reaches the order by its signed link, or by its number and e-mail", async () => {
    await setStock(shop, db(), BOOK, 1);
    const orderId = await buy(origin, shop.processorKeys!.publishableKey, 1);
    const row = await db()
      .selectFrom("orders")
      .select(["number", "contact_email"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    const { orders } = shop.services;
    const path = await orders.findGuestOrderPath(row.number.toLowerCase(), row.contact_email!.toUpperCase());
    expect(path).toMatch(new RegExp(`^/orders/${row.number}\\?${ORDER_ACCESS_PARAM}=[A-Za-z0-9_-]{43}$`));
    expect(await orders.findGuestOrderPath(row.number, "someone@else.test")).toBeNull();
    const signature = new URL(path!, "http://shop.test").searchParams.get(ORDER_ACCESS_PARAM);
    expect((await orders.getOrderByAccess(row.number, signature))?.number).toBe(row.number);
    // One character changed (the last one: a different letter whichever it was, so the signature is never its own).
    const tampered = `${signature!.slice(0, 42)}${signature!.endsWith("A") ? "E" : "A"}`;
    expect(await orders.getOrderByAccess(row.number, tampered)).toBeNull();
    const confirmation = await db()
      .selectFrom("email_outbox")
      .select("text_body")
      .where("subject", "like", `%${row.number}%`)
      .executeTakeFirstOrThrow();
    expect(confirmation.text_body).toContain(path!);
  });

  it('"Find an order" refuses past ten wrong tries an hour with 429, and a found order costs nothing', async () => {
    await setStock(shop, db(), BOOK, 1);
    const orderId = await buy(origin, shop.processorKeys!.publishableKey, 1);
    const row = await db()
      .selectFrom("orders")
      .select(["number", "contact_email"])
      .where("id", "=", orderId)
      .executeTakeFirstOrThrow();
    // What /returns' "Find an order" calls, with the session and the client's address.
    const finder = { sessionId: "find-order-session", ip: "198.51.100.7" };
    const find = (email: string) => shop.services.findOrder.find(row.number, email, finder);
    for (let found = 0; found < 3; found++) expect(await find(row.contact_email!)).toMatch(/^\/orders\//);
    for (let wrong = 1; wrong <= 10; wrong++) expect(await find(`wrong${wrong}@else.test`)).toBeNull();
    await expect(find("wrong11@else.test")).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(/^Too many tries to find an order\. Please wait \d+ minutes and try again\.$/),
      retryAfterSeconds: expect.any(Number),
    });
    // Another session at the same address is refused too: the address's allowance is spent.
    await expect(
      shop.services.findOrder.find(row.number, row.contact_email!, { sessionId: "another", ip: finder.ip }),
    ).rejects.toMatchObject({ status: 429 });
    // Past the limit the right pair is refused too: the limit holds until the hour is over.
    await expect(find(row.contact_email!)).rejects.toMatchObject({ status: 429 });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("a return marked received on two instances at once", () => {
  let instances: Awaited<ReturnType<typeof startTwoInstances>>;
  beforeAll(async () => {
    instances = await startTwoInstances("returns-received");
  }, 60_000);
  afterAll(() => instances.close());

  it("restocks once", async () => {
    const [first] = instances.origins;
    const shops = instances.shops;
    await setStock(shops[0]!, instances.db, BOOK, 2);
    const orderId = await buy(first, instances.keys.publishableKey, 2);
    await ship(shops[0]!, orderId);
    const opened = await shops[1]!.services.returns.requestReturn(
      orderId,
      [{ index: 0, quantity: 2, reason: "wrong_item", resolution: "refund", replacementVariantId: null }],
      newKey(),
    );
    await shops[0]!.services.returns.approve(OPERATOR, opened.number);
    expect(await onHand(instances.db)).toBe(0);
    const outcomes = await Promise.allSettled(
      [0, 1, 0, 1, 0, 1].map((instance) =>
        shops[instance]!.services.returns.markReceived(OPERATOR, opened.number, 0, { received: 2, damaged: 1 }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect(await onHand(instances.db)).toBe(1);
    expect(await fulfilment(instances.db, orderId)).toBe("returned");
  });
});
