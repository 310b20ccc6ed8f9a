import { describe, expect, it } from "vitest";
import { BASKET_ITEM_LIMIT } from "../../shared/basket";
import type { Product } from "../../shared/catalogue";
import { canAddItem, findItemToRemove, findPaidItems, priceItems, type StoredItem } from "./basket-rules";

const product = (id: string, priceCents: number): Product => ({
  id,
  title: `Product ${id}`,
  priceCents,
  rating: 4,
  image: { src: `/images/products/${id}.webp`, width: 400, height: 400 },
});
const catalogue = new Map([
  ["book", product("book", 1196)],
  ["echo", product("echo", 9899)],
  ["monitor", product("monitor", 109498)],
]);
const items = (...productIds: string[]): StoredItem[] => productIds.map((productId, index) => ({ itemId: String(index + 1), productId }));

describe("basket rules", () => {
  it("allows adding until the basket holds the limit, then refuses", () => {
    expect(canAddItem([])).toBe(true);
    expect(canAddItem(items(...Array<string>(BASKET_ITEM_LIMIT - 1).fill("book")))).toBe(true);
    expect(canAddItem(items(...Array<string>(BASKET_ITEM_LIMIT).fill("book")))).toBe(false);
  });

  it("removes the first item with the product id, leaving later duplicates", () => {
    const basket = items("echo", "book", "echo", "book");
    expect(findItemToRemove(basket, "book")).toEqual({ itemId: "2", productId: "book" });
    expect(findItemToRemove(basket, "echo")).toEqual({ itemId: "1", productId: "echo" });
  });

  it("finds nothing to remove for an id that is not in the basket", () => {
    expect(findItemToRemove(items("echo"), "book")).toBeNull();
    expect(findItemToRemove([], "book")).toBeNull();
  });

  it("totals in integer cents: 3 x 11.96 is exactly 35.88, 11.96 + 98.99 exactly 110.95", () => {
    expect(priceItems(items("book", "book", "book"), catalogue)).toMatchObject({ count: 3, subtotalCents: 3588 });
    expect(priceItems(items("book", "echo"), catalogue)).toMatchObject({ count: 2, subtotalCents: 11095 });
    expect(priceItems(items("monitor", "monitor"), catalogue).subtotalCents).toBe(218996);
  });

  it("prices an empty basket at zero and keeps items in the order added", () => {
    expect(priceItems([], catalogue)).toEqual({ items: [], count: 0, subtotalCents: 0 });
    const priced = priceItems(items("echo", "book"), catalogue);
    expect(priced.items.map((line) => line.product.id)).toEqual(["echo", "book"]);
  });

  it("leaves out items whose product is no longer in the catalogue", () => {
    expect(priceItems(items("book", "gone"), catalogue)).toMatchObject({ count: 1, subtotalCents: 1196 });
  });

  it("after an order, picks exactly the paid items and leaves what was added later", () => {
    const basket = items("book", "echo", "book", "monitor");
    expect(findPaidItems(basket, ["book", "echo"]).map((item) => item.itemId)).toEqual(["1", "2"]);
    expect(findPaidItems(basket, ["book", "book"]).map((item) => item.itemId)).toEqual(["1", "3"]);
    expect(findPaidItems(basket, ["book", "book", "book"]).map((item) => item.itemId)).toEqual(["1", "3"]);
    expect(findPaidItems(basket, ["gone"])).toEqual([]);
  });
});
