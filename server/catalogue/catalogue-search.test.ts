import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { DEFAULT_LISTING_STATE } from "#shared/listing";
import { createCatalogueService } from "./catalogue-service";

const MONITOR = "4903850";
const WIDE_MONITOR = "90829332";
const IPAD = "3254354345";
const ECHO = "23445930";

describeEachDatabase("catalogue search", (getDatabase) => {
  const search = (query: string, page = 1) =>
    createCatalogueService(getDatabase().db).search(query, { ...DEFAULT_LISTING_STATE, page });
  const idsFor = async (query: string) => (await search(query)).products.map((product) => product.id);

  it("ranks products with the word in their title above those with it in their description only", async () => {
    const results = await search("monitor");
    expect(results.total).toBe(3);
    expect(
      results.products
        .slice(0, 2)
        .map((product) => product.id)
        .sort(),
    ).toEqual([MONITOR, WIDE_MONITOR].sort());
    expect(results.products[2]?.id).toBe(IPAD);
  });

  it("takes the last word as a prefix, and forgives typos in a title", async () => {
    expect((await idsFor("mon")).sort()).toEqual([IPAD, MONITOR, WIDE_MONITOR].sort());
    expect((await idsFor("curved mon")).sort()).toEqual([MONITOR, WIDE_MONITOR].sort());
    // "moniter" stems to "monit", a prefix of "monitor": the iPad's description mentions one too, after the titles.
    expect((await idsFor("moniter")).slice(0, 2).sort()).toEqual([MONITOR, WIDE_MONITOR].sort());
    expect(await idsFor("ipda")).toEqual([IPAD]);
    expect(await idsFor("smrt speker")).toEqual([ECHO]);
    expect(await idsFor("zzzzqqq")).toEqual([]);
  });

  it("understands quotes, -word and or, as a search engine does", async () => {
    expect(await idsFor("monitor -samsung")).toEqual([IPAD]);
    expect(await idsFor('"stand mixer"')).toEqual(["49538094"]);
    expect((await idsFor("ipad or echo")).sort()).toEqual([ECHO, IPAD].sort());
  });

  it("lists every product for an empty query, in the home page's order", async () => {
    const results = await search("");
    expect(results.products.map((product) => product.id)).toEqual([
      "12321341",
      "49538094",
      MONITOR,
      ECHO,
      IPAD,
      WIDE_MONITOR,
    ]);
    expect(results).toMatchObject({ total: 6, page: 1, pageCount: 1 });
  });

  it("never fails on operators, quotes, backslashes or markup", async () => {
    for (const query of [
      '"',
      "'",
      "\\",
      "!",
      "&|:*()",
      "-",
      "or",
      '"""\\\'',
      "<script>alert(1)</script>",
      "a:* & b",
      "\u0000x",
      "ｍｏｎｉｔｏｒ",
    ]) {
      const results = await search(query);
      expect(results.total).toBeGreaterThanOrEqual(0);
    }
  });

  describe("with 45 more products", () => {
    const extraIds = Array.from({ length: 45 }, (_, index) => `widget-${String(index + 1).padStart(2, "0")}`);
    beforeAll(async () => {
      await getDatabase()
        .db.insertInto("products")
        .values(
          extraIds.map((id, index) => ({
            id,
            slug: id,
            title: `Garden widget number ${index + 1}`,
            description: "A widget for the garden.",
            price_cents: 100 + index,
            rating: 3,
            image: "/images/products/12321341.webp",
            image_width: 400,
            image_height: 400,
            featured_position: null,
          })),
        )
        .execute();
    });
    afterAll(async () => {
      await getDatabase().db.deleteFrom("products").where("id", "in", extraIds).execute();
    });

    it("pages results 24 at a time, each product once", async () => {
      const pages = [await search("widget", 1), await search("widget", 2)];
      expect(pages.map((page) => page.products.length)).toEqual([24, 21]);
      expect(pages.map((page) => [page.total, page.pageCount])).toEqual([
        [45, 2],
        [45, 2],
      ]);
      expect(new Set(pages.flatMap((page) => page.products.map((product) => product.id)))).toEqual(new Set(extraIds));
      expect(await search("widget", 9)).toMatchObject({ products: [], total: 45, pageCount: 2 });
      expect((await search("", 3)).products.length).toBe(3);
    });

    it("leaves archived products out of every search", async () => {
      const { db } = getDatabase();
      await db.updateTable("products").set({ status: "archived" }).where("id", "in", extraIds.slice(0, 40)).execute();
      expect((await search("widget")).total).toBe(5);
      expect((await search("")).total).toBe(11);
    });
  });
});
