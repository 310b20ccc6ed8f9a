import { expect, it } from "vitest";
import { BASKET_ITEM_LIMIT, type BasketView } from "../../shared/basket";
import { describeEachDatabase } from "../testing/test-database";
import { createBrowser, createTestShop } from "../testing/test-app";
import { sql } from "kysely";

const BOOK = "12321341"; // $11.96
const ECHO = "23445930"; // $98.99

describeEachDatabase("basket endpoints", (getDatabase) => {
  const setup = async () => {
    const { app } = await createTestShop(getDatabase());
    return { app, browser: createBrowser(app) };
  };
  const basketOf = async (browser: ReturnType<typeof createBrowser>) => ((await (await browser.get("/basket")).json()) as { basket: BasketView }).basket;

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

  it("appends duplicates and totals in cents: three books are exactly $35.88", async () => {
    const { browser } = await setup();
    for (let i = 0; i < 3; i++) await browser.postJson("/basket/add", { productId: BOOK });
    const basket = await basketOf(browser);
    expect(basket.count).toBe(3);
    expect(basket.subtotalCents).toBe(3588);
    expect(basket.items.map((item) => item.product.title)).toEqual(Array(3).fill("The Lean Startup: How Constant Innovation Creates Radically Successful Businesses"));
  });

  it("removes the first matching item only, and an absent id changes nothing", async () => {
    const { browser } = await setup();
    for (const productId of [ECHO, BOOK, ECHO]) await browser.postJson("/basket/add", { productId });
    const before = await basketOf(browser);
    const removed = await browser.postJson("/basket/remove", { productId: ECHO });
    expect(removed.status).toBe(200);
    const after = ((await removed.json()) as { basket: BasketView }).basket;
    expect(after.items.map((item) => item.itemId)).toEqual([before.items[1]?.itemId, before.items[2]?.itemId]);
    expect(after.subtotalCents).toBe(1196 + 9899);

    const absent = await browser.postJson("/basket/remove", { productId: "90829332" });
    expect(absent.status).toBe(200);
    expect(await basketOf(browser)).toEqual(after);
  });

  it("answers every change with the basket's new revision, which pages read with the same items", async () => {
    const { browser } = await setup();
    expect((await basketOf(browser)).revision).toBe(0);
    const revisionOf = async (response: Response) => ((await response.json()) as { basket: BasketView }).basket.revision;
    const added = await revisionOf(await browser.postJson("/basket/add", { productId: BOOK }));
    const addedAgain = await revisionOf(await browser.postJson("/basket/add", { productId: ECHO }));
    const removed = await revisionOf(await browser.postJson("/basket/remove", { productId: BOOK }));
    expect(addedAgain).toBeGreaterThan(added);
    expect(removed).toBeGreaterThan(addedAgain);
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

  it("refuses the 101st item with a clear message and keeps 100", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const { db } = getDatabase();
    // Fill the rest directly: the rule under test is the refusal at the limit.
    const basketId = (await db.selectFrom("basket_items").select("basket_id").orderBy("id", "desc").limit(1).executeTakeFirstOrThrow()).basket_id;
    await sql`insert into basket_items (basket_id, product_id) select ${basketId}, ${BOOK} from generate_series(2, ${BASKET_ITEM_LIMIT})`.execute(db);
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT);
    const response = await browser.postJson("/basket/add", { productId: ECHO });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: "BASKET_FULL", message: "Your basket is full: it holds at most 100 items." } });
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT);
  });

  it("keeps the limit under concurrent adds", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const { db } = getDatabase();
    const basketId = (await db.selectFrom("basket_items").select("basket_id").orderBy("id", "desc").limit(1).executeTakeFirstOrThrow()).basket_id;
    await sql`insert into basket_items (basket_id, product_id) select ${basketId}, ${BOOK} from generate_series(2, ${BASKET_ITEM_LIMIT - 5})`.execute(db);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => browser.postJson("/basket/add", { productId: ECHO }).then((response) => response.status)));
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    expect((await basketOf(browser)).count).toBe(BASKET_ITEM_LIMIT);
  });

  it("refuses an unknown product with a clear message and leaves the basket unchanged", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const before = await basketOf(browser);
    const response = await browser.postJson("/basket/add", { productId: "99999999" });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "UNKNOWN_PRODUCT", message: expect.stringContaining("not in our catalogue") } });
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
    const malformed = await browser.send("/basket/add", { method: "POST", body: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    const xml = await browser.send("/basket/add", { method: "POST", body: "<x/>", headers: { "content-type": "application/xml" } });
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
    expect(added.headers.get("location")).toBe("/checkout");
    expect((await basketOf(browser)).count).toBe(1);
    const refused = await browser.postForm("/basket/add", { productId: "nope" }, { referer: "http://shop.test/?x=1" });
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toBe("/?x=1&basket-error=UNKNOWN_PRODUCT");
  });

  it("refuses a cross-site post and changes nothing", async () => {
    const { browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const fromOrigin = await browser.postForm("/basket/empty", {}, { origin: "https://evil.example" });
    expect(fromOrigin.status).toBe(403);
    const fromSite = await browser.postJson("/basket/empty", {}, { "sec-fetch-site": "cross-site" });
    expect(fromSite.status).toBe(403);
    expect((await basketOf(browser)).count).toBe(1);
    const sameSite = await browser.postJson("/basket/empty", {}, { origin: "http://shop.test", "sec-fetch-site": "same-origin" });
    expect(sameSite.status).toBe(200);
  });

  it("keeps baskets of different browsers apart, and ignores a forged cookie", async () => {
    const { app, browser } = await setup();
    await browser.postJson("/basket/add", { productId: BOOK });
    const other = createBrowser(app);
    expect((await basketOf(other)).count).toBe(0);
    const forged = await app.request("http://shop.test/basket", { headers: { host: "shop.test", cookie: "sf_session=" + "A".repeat(43) } });
    expect(((await forged.json()) as { basket: BasketView }).basket.count).toBe(0);
  });
});
