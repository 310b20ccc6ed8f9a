import { afterAll, beforeAll, expect, it } from "vitest";
import type { BasketView } from "#shared/basket";
import { createPageShop } from "#server/testing/page-shop";
import { createBrowser } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";
import type { DB } from "#server/db/client";

let counter = 0;

/**
 * "Hooded Top" in Colour (Black, White) and Size (M, L): Black / M, its first variant, is sold out; White / L is not
 * made at all. Each shopper gets one of its own, so what is in stock is the test's.
 */
async function createHoodedTop(db: DB) {
  const id = `hooded-top-${Date.now()}-${++counter}`;
  await db
    .insertInto("products")
    .values({
      id,
      slug: id,
      title: `Hooded Top ${counter}`,
      price_cents: 4500,
      rating: 4,
      image: "/images/products/12321341.webp",
      image_width: 400,
      image_height: 400,
      featured_position: null,
    })
    .execute();
  await db
    .insertInto("product_options")
    .values([
      { product_id: id, position: 1, name: "Colour", values: JSON.stringify(["Black", "White"]) },
      { product_id: id, position: 2, name: "Size", values: JSON.stringify(["M", "L"]) },
    ])
    .execute();
  await db.deleteFrom("product_variants").where("product_id", "=", id).execute();
  const variant = (colour: string, size: string, position: number, onHand: number) => ({
    id: `${id}-${colour}-${size}`.toLowerCase(),
    product_id: id,
    position,
    option_values: JSON.stringify([colour, size]),
    price_cents: 4500,
    sku: null,
    compare_at_cents: null,
    image: null,
    image_width: null,
    image_height: null,
    image_srcset: null,
    tracks_stock: true,
    continue_selling: false,
    on_hand: onHand,
  });
  await db
    .insertInto("product_variants")
    .values([variant("Black", "M", 1, 0), variant("Black", "L", 2, 5), variant("White", "M", 3, 5)])
    .execute();
  return {
    id,
    path: `/products/${id}`,
    blackM: `${id}-black-m`,
    blackL: `${id}-black-l`,
    whiteM: `${id}-white-m`,
  };
}

/** The radios a product page's HTML has checked, as "name=value". */
function checkedRadios(html: string): string[] {
  return [...html.matchAll(/<input type="radio" name="(option\d)" checked="" value="([^"]*)"/g)].map(
    ([, name, value]) => `${name}=${value}`,
  );
}

/**
 * The product page's one form: "Add to Basket" posts the chosen option values and the server finds the variant,
 * or answers "Choose a {option}." / "This combination is not available." on the page; the page opens on a variant
 * that can be bought; cards of products in options say "See options".
 */
describeEachDatabase("the variant a shopper chose", (getDatabase) => {
  let shop: Awaited<ReturnType<typeof createPageShop>>;
  beforeAll(async () => {
    shop = await createPageShop(getDatabase());
  }, 120_000);
  afterAll(async () => {
    await shop?.close();
  });
  const setup = async () => {
    const top = await createHoodedTop(getDatabase().db);
    return { browser: createBrowser(shop.app), top };
  };
  const linesOf = async (browser: ReturnType<typeof createBrowser>) =>
    ((await (await browser.get("/basket")).json()) as { basket: BasketView }).basket.items.map((line) => ({
      variant: line.variant.id,
      quantity: line.quantity,
    }));

  it("adds the variant whose values a form post without JavaScript sent, and comes back showing it", async () => {
    const { browser, top } = await setup();
    const added = await browser.postForm("/basket/add", {
      productId: top.id,
      option1: "White",
      option2: "M",
      returnTo: top.path,
    });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe(`${top.path}?variant=${top.whiteM}#product-${top.id}`);
    expect(await linesOf(browser)).toEqual([{ variant: top.whiteM, quantity: 1 }]);
    const page = await (await browser.get(`${top.path}?variant=${top.whiteM}`)).text();
    expect(checkedRadios(page)).toEqual(["option1=White", "option2=M"]);
  });

  it('answers an option left out with "Choose a {option}." on the page, and adds nothing', async () => {
    const { browser, top } = await setup();
    const refused = await browser.postForm(
      "/basket/add",
      { productId: top.id, option1: "White", returnTo: top.path },
      { referer: `http://shop.test${top.path}` },
    );
    expect(refused.status).toBe(303);
    const back = refused.headers.get("location") ?? "";
    expect(back).toBe(
      `${top.path}?basket-product=${top.id}&basket-option=2&basket-error=OPTION_REQUIRED#product-${top.id}`,
    );
    const page = await (await browser.get(back.split("#")[0]!)).text();
    expect(page).toContain("Choose a Size.");
    expect(await linesOf(browser)).toEqual([]);
    // The address names the option by position only: any other text there is not shown.
    const forged = await (
      await browser.get(`${top.path}?basket-product=${top.id}&basket-option=Free+gift&basket-error=OPTION_REQUIRED`)
    ).text();
    expect(forged).not.toContain("Free gift");
    expect(forged).toContain("Your basket could not be changed. Please try again.");
  });

  it('answers values no variant has with "This combination is not available." on the page, and adds nothing', async () => {
    const { browser, top } = await setup();
    const refused = await browser.postForm(
      "/basket/add",
      { productId: top.id, option1: "White", option2: "L", returnTo: top.path },
      { referer: `http://shop.test${top.path}` },
    );
    const back = refused.headers.get("location") ?? "";
    expect(back).toContain("basket-error=NO_SUCH_COMBINATION");
    expect(await (await browser.get(back.split("#")[0]!)).text()).toContain("This combination is not available.");
    expect(await linesOf(browser)).toEqual([]);
  });

  it("answers the same with JSON, and refuses a product in options added without a choice", async () => {
    const { browser, top } = await setup();
    const added = await browser.postJson("/basket/add", { productId: top.id, option1: "Black", option2: "L" });
    expect(added.status).toBe(201);
    const missing = await browser.postJson("/basket/add", { productId: top.id, option2: "L" });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe("Choose a Colour.");
    const unavailable = await browser.postJson("/basket/add", { productId: top.id, option1: "White", option2: "L" });
    expect(unavailable.status).toBe(422);
    expect(((await unavailable.json()) as { error: { message: string } }).error.message).toBe(
      "This combination is not available.",
    );
    // A card's post (no variant, no values) no longer gets the first variant.
    const bare = await browser.postJson("/basket/add", { productId: top.id });
    expect(bare.status).toBe(422);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toBe("Choose a Colour.");
    const both = await browser.postJson("/basket/add", { productId: top.id, variantId: top.whiteM, option1: "Black" });
    expect(both.status).toBe(400);
    const tooLong = await browser.postJson("/basket/add", { productId: top.id, option1: "x".repeat(101) });
    expect(tooLong.status).toBe(400);
    // The sold-out variant is refused as before.
    const soldOut = await browser.postJson("/basket/add", { productId: top.id, option1: "Black", option2: "M" });
    expect(soldOut.status).toBe(409);
    expect(await linesOf(browser)).toEqual([{ variant: top.blackL, quantity: 1 }]);
  });

  it("opens the product page on the first variant that can be bought, or the one ?variant= names", async () => {
    const { browser, top } = await setup();
    const page = await (await browser.get(top.path)).text();
    expect(checkedRadios(page)).toEqual(["option1=Black", "option2=L"]);
    const named = await (await browser.get(`${top.path}?variant=${top.blackM}`)).text();
    expect(checkedRadios(named)).toEqual(["option1=Black", "option2=M"]);
  });

  it('"Choose" without JavaScript opens the chosen variant\'s own address, or says the combination is not available', async () => {
    const { browser, top } = await setup();
    const chosen = await browser.get(`${top.path}?productId=${top.id}&returnTo=%2F&option1=White&option2=M`);
    expect(chosen.status).toBe(302);
    expect(chosen.headers.get("location")).toBe(`${top.path}?variant=${top.whiteM}`);
    const unavailable = await browser.get(`${top.path}?option1=White&option2=L`);
    expect(unavailable.status).toBe(200);
    expect(await unavailable.text()).toContain("This combination is not available.");
  });

  it('shows "See options" on the cards of a product in options, and "Add to Basket" on the others', async () => {
    const { browser, top } = await setup();
    const results = await (await browser.get(`/search?q=${encodeURIComponent("Hooded Top")}`)).text();
    const card = results.slice(results.indexOf(`id="product-${top.id}"`));
    const end = card.indexOf("</article>");
    expect(card.slice(0, end)).toContain(`href="${top.path}"`);
    expect(card.slice(0, end)).toMatch(/>See options<\/a>/);
    expect(card.slice(0, end)).not.toContain("Add to Basket");
    const home = await (await browser.get("/")).text();
    expect(home).toContain("Add to Basket");
  });
});
