import { describe, expect, it } from "vitest";
import { catalogue } from "./catalogue-data";

describe("the catalogue", () => {
  it("holds the six products of the home page with their prices in cents", () => {
    expect(catalogue.map((product) => [product.id, product.priceCents])).toEqual([
      ["12321341", 1196],
      ["49538094", 23900],
      ["4903850", 19999],
      ["23445930", 9899],
      ["3254354345", 59899],
      ["90829332", 109498],
    ]);
  });

  it("has unique ids, whole-cent prices and ratings of 1 to 5", () => {
    expect(new Set(catalogue.map((product) => product.id)).size).toBe(catalogue.length);
    for (const product of catalogue) {
      expect(Number.isSafeInteger(product.priceCents) && product.priceCents > 0).toBe(true);
      expect(product.rating).toBeGreaterThanOrEqual(1);
      expect(product.rating).toBeLessThanOrEqual(5);
    }
  });
});
