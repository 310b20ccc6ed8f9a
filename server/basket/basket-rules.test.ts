import { describe, expect, it } from "vitest";
import type { CatalogueProduct } from "#shared/catalogue";
import type { VariantForSale } from "#server/catalogue/catalogue-service";
import {
  countItems,
  findLine,
  mergeLines,
  priceLines,
  refuseQuantity,
  subtractPaid,
  type StoredLine,
} from "./basket-rules";

/** A product without options: one variant, whose id is the product's, not tracking stock. */
const product = (id: string, priceCents: number, available: number | null = null): VariantForSale => {
  const shown: CatalogueProduct = {
    id,
    slug: id,
    title: `Product ${id}`,
    priceCents,
    rating: 4,
    ratingCount: 0,
    image: { src: `/images/products/${id}.webp`, width: 400, height: 400 },
  };
  return {
    product: shown,
    optionNames: [],
    variant: {
      id,
      optionValues: [],
      sku: null,
      priceCents,
      compareAtCents: null,
      weightGrams: 0,
      chargeTax: true,
      stock: { tracksStock: available !== null, continueSelling: false, available },
    },
  };
};
const catalogue = new Map([
  ["book", product("book", 1196)],
  ["echo", product("echo", 9899)],
  ["monitor", product("monitor", 109498)],
]);
/** Lines as [productId, quantity] pairs, each added at the catalogue's price. */
const lines = (...entries: [string, number][]): StoredLine[] =>
  entries.map(([productId, quantity], index) => ({
    lineId: String(index + 1),
    productId,
    variantId: productId,
    quantity,
    addedPriceCents: catalogue.get(productId)?.variant.priceCents ?? 100,
  }));
/** Eleven products of nine items each: 99 items, one short of the basket limit. */
const ninetyNine = () => lines(...Array.from({ length: 11 }, (_, index): [string, number] => [`p${index}`, 9]));

describe("basket rules", () => {
  it("counts items, not lines", () => {
    expect(countItems(lines(["book", 3], ["echo", 1]))).toBe(4);
    expect(countItems([])).toBe(0);
  });

  it("allows a line up to 10 and refuses the 11th of one product", () => {
    expect(refuseQuantity([], "book", 1)).toBeNull();
    expect(refuseQuantity(lines(["book", 9]), "book", 10)).toBeNull();
    expect(refuseQuantity(lines(["book", 10]), "book", 11)).toBe("BASKET_LINE_FULL");
  });

  it("allows the basket up to 100 items and refuses the 101st, counting the line's own quantity once", () => {
    const basket = ninetyNine();
    expect(refuseQuantity(basket, "book", 1)).toBeNull();
    expect(refuseQuantity(basket, "book", 2)).toBe("BASKET_FULL");
    // Setting a line already in the basket replaces its quantity: 90 others + 10 is exactly 100.
    expect(refuseQuantity(basket, "p0", 10)).toBeNull();
    expect(refuseQuantity([...basket, ...lines(["book", 1])], "p0", 10)).toBe("BASKET_FULL");
  });

  it("finds a product's line, or none", () => {
    expect(findLine(lines(["echo", 1], ["book", 2]), "book")).toMatchObject({ productId: "book", quantity: 2 });
    expect(findLine(lines(["echo", 1]), "book")).toBeNull();
  });

  it("prices lines in integer cents: 3 x 11.96 is exactly 35.88, and the count is the items", () => {
    expect(priceLines(lines(["book", 3]), catalogue)).toMatchObject({
      count: 3,
      subtotalCents: 3588,
      items: [{ quantity: 3, lineCents: 3588 }],
    });
    expect(priceLines(lines(["book", 1], ["echo", 1]), catalogue)).toMatchObject({ count: 2, subtotalCents: 11095 });
    expect(priceLines(lines(["monitor", 2]), catalogue).subtotalCents).toBe(218996);
    expect(priceLines([], catalogue)).toEqual({ items: [], count: 0, subtotalCents: 0 });
  });

  it("leaves out lines whose product is no longer in the catalogue, from the list and the count", () => {
    expect(priceLines(lines(["book", 2], ["gone", 5]), catalogue)).toMatchObject({ count: 2, subtotalCents: 2392 });
  });

  it("says what a line's price was when the catalogue's price has changed since it was added", () => {
    const added = [{ lineId: "1", productId: "book", variantId: "book", quantity: 2, addedPriceCents: 999 }];
    expect(priceLines(added, catalogue).items[0]).toMatchObject({ addedPriceCents: 999, lineCents: 2392 });
    expect(priceLines(lines(["book", 2]), catalogue).items[0]).not.toHaveProperty("addedPriceCents");
  });

  it("after an order, takes out exactly the paid quantities and leaves what was added later", () => {
    const basket = lines(["book", 3], ["echo", 1], ["monitor", 1]);
    expect(
      subtractPaid(basket, [
        { productId: "book", quantity: 2 },
        { productId: "echo", quantity: 1 },
      ]).map(({ line, quantity }) => [line.productId, quantity]),
    ).toEqual([
      ["book", 1],
      ["echo", 0],
    ]);
    // Old snapshots list one entry per item: they add up.
    expect(
      subtractPaid(basket, [
        { productId: "book", quantity: 1 },
        { productId: "book", quantity: 1 },
      ]).map(({ quantity }) => quantity),
    ).toEqual([1]);
    expect(subtractPaid(basket, [{ productId: "book", quantity: 5 }]).map(({ quantity }) => quantity)).toEqual([0]);
    expect(subtractPaid(basket, [{ productId: "gone", quantity: 1 }])).toEqual([]);
  });

  it("merges a guest's lines into an account's within the line and basket limits, and counts what did not fit", () => {
    const merged = mergeLines(lines(["book", 7]), lines(["book", 5], ["echo", 2]));
    expect(merged).toMatchObject({ moved: 5, dropped: 2 });
    expect(merged.changes.map(({ productId, lineId, quantity }) => [productId, lineId, quantity])).toEqual([
      ["book", "1", 10],
      ["echo", null, 2],
    ]);
    const full = mergeLines(ninetyNine(), lines(["book", 3]));
    expect(full).toMatchObject({ moved: 1, dropped: 2 });
  });

  it("says a line is out of stock when its variant is, and how many are left when it holds more than that", () => {
    const stocked = new Map([
      ["gone", product("gone", 500, 0)],
      ["few", product("few", 500, 2)],
      ["many", product("many", 500, 20)],
    ]);
    const [gone, few, many] = priceLines(
      [
        { lineId: "1", productId: "gone", variantId: "gone", quantity: 1, addedPriceCents: 500 },
        { lineId: "2", productId: "few", variantId: "few", quantity: 3, addedPriceCents: 500 },
        { lineId: "3", productId: "many", variantId: "many", quantity: 3, addedPriceCents: 500 },
      ],
      stocked,
    ).items;
    expect(gone).toMatchObject({ stockMessage: "Out of stock: remove it to continue", isOutOfStock: true });
    expect(few).toMatchObject({ stockMessage: "Only 2 left in stock" });
    expect(few).not.toHaveProperty("isOutOfStock");
    expect(many).not.toHaveProperty("stockMessage");
  });
});
