import { expect, it } from "vitest";
import { BASKET_ITEM_LIMIT, BASKET_LINE_LIMIT, type BasketView } from "#shared/basket";
import { describeEachDatabase } from "#server/testing/test-database";
import { createBrowser, createTestShop } from "#server/testing/test-app";
import { sql } from "kysely";
import type { DB } from "#server/db/client";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99
/** Ten more products, so a basket can reach its 100-item limit with lines of at most 10. */
const EXTRA_PRODUCTS = Array.from({ length: 10 }, (_, index) => `test-extra-${index}`);

async function addExtraProducts(db: DB): Promise<void> {
  await db
    .insertInto("products")
    .values(
      EXTRA_PRODUCTS.map((id, index) => ({
        id,
        slug: id,
        title: `Extra ${index}`,
        price_cents: 500,
        rating: 3,
        image: "/images/x.webp",
        image_width: 1,
        image_height: 1,
        featured_position: null,
      })),
    )
    .onConflict((conflict) => conflict.column("id").doNothing())
    .execute();
}

/** Puts lines straight into the browser's basket (whose first line is already there): the rule under test is what comes next. */
async function addLines(db: DB, lines: [productId: string, quantity: number][]): Promise<void> {
  const { basket_id: basketId } = await db
    .selectFrom("basket_items")
    .select("basket_id")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirstOrThrow();
  await db
    .insertInto("basket_items")
    .values(
      lines.map(([productId, quantity]) => ({
        basket_id: basketId,
        product_id: productId,
        variant_id: productId,
        quantity,
        added_price_cents: 500,
      })),
    )
    .execute();
}

describeEachDatabase("basket endpoints", (getDatabase) => {
  const setup = async () => {
    await addExtraProducts(getDatabase().db);
    const { app } = await createTestShop(getDatabase());
    return { app, browser: createBrowser(app) };
  };
  const basketOf = async (browser: ReturnType<typeof createBrowser>) =>
    ((await (await browser.get("/basket")).json()) as { basket: BasketView }).basket;

  it("starts a session on the first add and keeps the basket with it", async () => {
    const { browser } = await setup();
    expect((await basketOf(browser)).count).toBe(0);
    const response = await browser.postJson("/basket/add", { productId: BOOK });
    expect(response.status).toBe(201);
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^sf_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect((await basketOf(browser)).count).toBe(1);
  });

  it("adds one to the product's line, and totals in cents: three books are one line of 3, exactly $35.88", async () => {
    const { browser } = await setup();
    for (let i = 0; i < 3; i++) await browser.postJson("/basket/add", { productId: BOOK });
    await browser.postJson("/basket/add", { productId: ECHO });
    const basket = await basketOf(browser);
    expect(basket.count).toBe(4);
    expect(basket.subtotalCents).toBe(3588 + 9899);
    expect(basket.items.map((line) => [line.product.id, line.quantity, line.lineCents])).toEqual([
      [BOOK, 3, 3588],
      [ECHO, 1, 9899],
    ]);
  });

  it("sets a line's quantity, and removing takes the whole line; an absent id changes nothing", async () => {
    const { browser } = await setup();
    for (const productId of [ECHO, BOOK]) await browser.postJson("/basket/add", { productId });
    const set = await browser.postJson("/basket/quantity", { productId: ECHO, quantity: 4 });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { basket: BasketView }).basket).toMatchObject({
      count: 5,
      subtotalCents: 4 * 9899 + 1196,
    });
    const removed = await browser.postJson("/basket/remove", { productId: ECHO });
    expect(removed.status).toBe(200);
    const after = ((await removed.json()) as { basket: BasketView; removed: boolean }).basket;
    expect(after.items.map((line) => [line.product.id, line.quantity])).toEqual([[BOOK, 1]]);
    expect(after).toMatchObject({ count: 1, subtotalCents: 1196 });

    const absent = await browser.postJson("/basket/remove", { productId: "90829332" });
    expect(absent.status).toBe(200);
    expect(await absent.json()).toMatchObject({ removed: false });
    expect(await basketOf(browser)).toEqual(after);
  });

  it("refuses an 11th of one product, by add or by quantity, with a clear message, and keeps 10", async () => {
    const { browser } = await setup();
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: BASKET_LINE_LIMIT })).status).toBe(
      200,
    );
    const refused = await browser.postJson("/basket/add", { productId: BOOK });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: { code: "BASKET_LINE_FULL", message: "You can have at most 10 of one product in your basket." },
    });
    const tooMany = await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 11 });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({
      error: { code: "BAD_REQUEST", message: expect.stringContaining("quantity must be at most 10") },
    });
    expect((await basketOf(browser)).items.map((line) => line.quantity)).toEqual([BASKET_LINE_LIMIT]);
  });

  it("keeps the line limit under 20 concurrent adds of one product: 10 in, 10 refused", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        browser.postJson("/basket/add", { productId: BOOK }).then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(BASKET_LINE_LIMIT - 1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(20 - (BASKET_LINE_LIMIT - 1));
    expect(await basketOf(browser)).toMatchObject({
      count: BASKET_LINE_LIMIT,
      items: [{ quantity: BASKET_LINE_LIMIT }],
    });
  });

  it.each([
    ["zero", 0, /at least 1/],
    ["a fraction", 2.5, /whole number/],
    ["text", "two", /whole number/],
    ["a boolean", true, /whole number/],
    ["a missing quantity", undefined, /quantity/],
  ])("refuses %s as a quantity with 400 and changes nothing", async (_name, quantity, message) => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const before = await basketOf(browser);
    const response = await browser.postJson("/basket/quantity", { productId: BOOK, quantity });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
    expect(await basketOf(browser)).toEqual(before);
  });

  it("answers every change with the basket's new revision, which pages read with the same items", async () => {
    const { browser } = await setup();
    expect((await basketOf(browser)).revision).toBe(0);
    const revisionOf = async (response: Response) =>
      ((await response.json()) as { basket: BasketView }).basket.revision;
    const added = await revisionOf(await browser.postJson("/basket/add", { productId: BOOK }));
    const addedAgain = await revisionOf(await browser.postJson("/basket/add", { productId: ECHO }));
    const quantity = await revisionOf(await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 3 }));
    // The same quantity again changes nothing.
    expect(await revisionOf(await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 3 }))).toBe(
      quantity,
    );
    const removed = await revisionOf(await browser.postJson("/basket/remove", { productId: BOOK }));
    expect(addedAgain).toBeGreaterThan(added);
    expect(quantity).toBeGreaterThan(addedAgain);
    expect(removed).toBeGreaterThan(quantity);
    // What changed nothing keeps the revision: a page at that revision already shows it.
    expect(await revisionOf(await browser.postJson("/basket/remove", { productId: BOOK }))).toBe(removed);
    const refused = await browser.postJson("/basket/add", { productId: "not-a-product" });
    expect(refused.status).toBe(422);
    const now = await basketOf(browser);
    expect(now).toMatchObject({ revision: removed, count: 1 });
    expect(now.items.map((item) => item.product.id)).toEqual([ECHO]);
    const emptied = await revisionOf(await browser.postJson("/basket/empty", {}));
    expect(emptied).toBeGreaterThan(removed);
    expect(await revisionOf(await browser.postJson("/basket/empty", {}))).toBe(emptied);
  });

  it("empties the basket", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const response = await browser.postJson("/basket/empty", {});
    expect(response.status).toBe(200);
    expect((await basketOf(browser)).count).toBe(0);
  });

  it("refuses the 101st item, by add or by quantity, with a clear message and keeps 100", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    // Ten lines of ten: the basket holds its limit.
    await addLines(
      getDatabase().db,
      EXTRA_PRODUCTS.slice(0, 9).map((id): [string, number] => [id, 10]),
    );
    await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 10 });
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT);
    const response = await browser.postJson("/basket/add", { productId: ECHO });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: "BASKET_FULL", message: "Your basket is full: it holds at most 100 items." },
    });
    expect((await browser.postJson("/basket/quantity", { productId: BOOK, quantity: 9 })).status).toBe(200);
    const raised = await browser.postJson("/basket/quantity", { productId: EXTRA_PRODUCTS[9], quantity: 2 });
    expect(raised.status).toBe(409);
    expect(await raised.json()).toMatchObject({ error: { code: "BASKET_FULL" } });
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT - 1);
  });

  it("keeps the basket limit under concurrent adds", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    // 9 lines of 10 and the book: 91 items, room for 9 more; 20 adds of the last product race for them.
    await addLines(
      getDatabase().db,
      EXTRA_PRODUCTS.slice(0, 9).map((id): [string, number] => [id, 10]),
    );
    const racers = [ECHO, EXTRA_PRODUCTS[9]!];
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        browser.postJson("/basket/add", { productId: racers[index % 2] }).then((response) => response.status),
      ),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(9);
    expect(statuses.filter((status) => status === 409)).toHaveLength(11);
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT);
  });

  it("two instances racing quantity changes over the limit: one wins, the other is refused and counts no revision", async () => {
    const { browser } = await setup();
    const { app: otherInstance } = await createTestShop(getDatabase());
    const onOther = createBrowser(otherInstance);
    await browser.postJson("/basket/add", { productId: BOOK });
    await browser.postJson("/basket/add", { productId: ECHO });
    // 9 lines of 10 and two of 1: 92 items. Raising either to 6 makes 97; raising both would make 102.
    await addLines(
      getDatabase().db,
      EXTRA_PRODUCTS.slice(0, 9).map((id): [string, number] => [id, 10]),
    );
    const before = await basketOf(browser);
    const cookie = browser.cookie ?? "";
    const race = () =>
      Promise.all(
        [
          browser.postJson("/basket/quantity", { productId: BOOK, quantity: 6 }),
          onOther.postJson("/basket/quantity", { productId: ECHO, quantity: 6 }, { cookie }),
        ].map(async (pending) => {
          const response = await pending;
          return { status: response.status, body: (await response.json()) as { basket?: BasketView } };
        }),
      );
    const { db, kind } = getDatabase();
    let answers: Awaited<ReturnType<typeof race>>;
    if (kind === "postgres") {
      // Forced interleaving: both changes start while this transaction holds the basket, and are let go together
      // once both wait for it, so each has read the basket before the other wrote.
      const racing = await db.transaction().execute(async (trx) => {
        await trx.selectFrom("baskets").select("id").forUpdate().execute();
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        const started = race();
        // The first waits for this transaction, the second for the first (row locks queue).
        const mine = rows[0]!.pid;
        const waiting = sql<{ waiting: number }>`
          with first as (select pid from pg_stat_activity where ${mine}::int = any(pg_blocking_pids(pid)))
          select count(*)::int as waiting from pg_stat_activity
          where pg_blocking_pids(pid) && (select array_agg(pid) || ${mine}::int from first)`;
        await expect.poll(async () => (await waiting.execute(db)).rows[0]?.waiting).toBe(2);
        return { started };
      });
      answers = await racing.started;
    } else {
      // PGlite runs one transaction at a time: the two simply queue.
      answers = await race();
    }
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers.find((answer) => answer.status === 200)?.body.basket;
    expect(await basketOf(browser)).toEqual(winner);
    // The refused change wrote nothing: one revision on, and the page at that revision shows the winner's 97 items.
    expect(winner).toMatchObject({ count: 97, revision: before.revision + 1 });
  });

  it("tells a shopper whose line changed price what it was, until they choose the line again at today's price", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    await browser.postJson("/basket/add", { productId: BOOK });
    const { db } = getDatabase();
    // A new instance, which reads the catalogue afresh at its first request (each caches it for a few seconds).
    const repriced = createBrowser((await createTestShop(getDatabase())).app);
    await db.updateTable("products").set({ price_cents: 999 }).where("id", "=", BOOK).execute();
    try {
      const cookie = browser.cookie ?? "";
      const read = async () =>
        ((await (await repriced.send("/basket", { headers: { cookie } })).json()) as { basket: BasketView }).basket;
      expect(await read()).toMatchObject({
        subtotalCents: 1998,
        items: [{ quantity: 2, lineCents: 1998, addedPriceCents: 1196, product: { priceCents: 999 } }],
      });
      // Choosing the same quantity again, at the new price, is the shopper's answer: the notice goes.
      expect((await repriced.postJson("/basket/quantity", { productId: BOOK, quantity: 2 }, { cookie })).status).toBe(
        200,
      );
      expect((await read()).items[0]).not.toHaveProperty("addedPriceCents");
    } finally {
      await db.updateTable("products").set({ price_cents: 1196 }).where("id", "=", BOOK).execute();
    }
  });

  it("refuses an unknown product with a clear message and leaves the basket unchanged", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const before = await basketOf(browser);
    const response = await browser.postJson("/basket/add", { productId: "99999999" });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: { code: "UNKNOWN_PRODUCT", message: expect.stringContaining("not in our catalogue") },
    });
    expect(await basketOf(browser)).toEqual(before);
  });

  it.each([
    ["a number for productId", { productId: 12321341 }, /productId/],
    ["a missing productId", {}, /productId/],
    ["an unknown field", { productId: BOOK, price: 1 }, /Unknown field: price/],
    ["an array body", [BOOK], /expected object/i],
    ["an over-long productId", { productId: "1".repeat(65) }, /too long/],
    ["a foreign returnTo", { productId: BOOK, returnTo: "https://evil.example/" }, /returnTo/],
  ])("answers 400 with a clear message for %s and changes nothing", async (_name, body, message) => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const before = await basketOf(browser);
    const response = await browser.postJson("/basket/add", body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toMatch(message);
    expect(await basketOf(browser)).toEqual(before);
  });

  it("answers 400 for malformed JSON, 415 for other body types and 413 for a huge body", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const before = await basketOf(browser);
    const malformed = await browser.send("/basket/add", {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    const xml = await browser.send("/basket/add", {
      method: "POST",
      body: "<x/>",
      headers: { "content-type": "application/xml" },
    });
    expect(xml.status).toBe(415);
    const huge = await browser.postJson("/basket/add", { productId: BOOK, padding: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(await basketOf(browser)).toEqual(before);
  });

  it("refuses repeated form fields", async () => {
    const { browser } = await setup();
    const response = await browser.send("/basket/add", {
      method: "POST",
      body: `productId=${BOOK}&productId=${ECHO}`,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/?basket-error=BAD_REQUEST");
    expect((await basketOf(browser)).count).toBe(0);
  });

  it("answers a form post without JavaScript with a redirect back to the page", async () => {
    const { browser } = await setup();
    const added = await browser.postForm("/basket/add", { productId: BOOK, returnTo: "/checkout" });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`/checkout#product-${BOOK}`);
    expect((await basketOf(browser)).count).toBe(1);
    const refused = await browser.postForm("/basket/add", { productId: "nope" }, { referer: "http://shop.test/?x=1" });
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toBe("/?x=1&basket-product=nope&basket-error=UNKNOWN_PRODUCT#product-nope");
  });

  it("brings a form post without JavaScript back to the product it was about, and names it when refused", async () => {
    const { browser } = await setup();
    const added = await browser.postForm("/basket/add", { productId: BOOK, returnTo: "/" });
    expect(added.headers.get("location")).toBe(`/#product-${BOOK}`);
    const quantity = await browser.postForm("/basket/quantity", {
      productId: BOOK,
      quantity: "10",
      returnTo: "/checkout",
    });
    expect(quantity.status).toBe(303);
    expect(quantity.headers.get("location")).toBe(`/checkout#product-${BOOK}`);
    expect((await basketOf(browser)).count).toBe(10);
    const refused = await browser.postForm(
      "/basket/add",
      { productId: BOOK, returnTo: "/" },
      { referer: "http://shop.test/" },
    );
    expect(refused.headers.get("location")).toBe(
      `/?basket-product=${BOOK}&basket-error=BASKET_LINE_FULL#product-${BOOK}`,
    );
    const notANumber = await browser.postForm(
      "/basket/quantity",
      { productId: BOOK, quantity: "ten", returnTo: "/checkout" },
      { referer: "http://shop.test/checkout" },
    );
    expect(notANumber.headers.get("location")).toBe("/checkout?basket-error=BAD_REQUEST");
    expect((await basketOf(browser)).count).toBe(10);
  });

  it("refuses a cross-site post and changes nothing", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const fromOrigin = await browser.postForm("/basket/empty", {}, { origin: "https://evil.example" });
    expect(fromOrigin.status).toBe(403);
    const fromSite = await browser.postJson("/basket/empty", {}, { "sec-fetch-site": "cross-site" });
    expect(fromSite.status).toBe(403);
    expect((await basketOf(browser)).count).toBe(1);
    const sameSite = await browser.postJson(
      "/basket/empty",
      {},
      { origin: "http://shop.test", "sec-fetch-site": "same-origin" },
    );
    expect(sameSite.status).toBe(200);
  });

  it("keeps baskets of different browsers apart, and ignores a forged cookie", async () => {
    const { app, browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const other = createBrowser(app);
    expect((await basketOf(other)).count).toBe(0);
    const forged = await app.request("http://shop.test/basket", {
      headers: { host: "shop.test", cookie: "sf_session=" + "A".repeat(43) },
    });
    expect(((await forged.json()) as { basket: BasketView }).basket.count).toBe(0);
  });
});
