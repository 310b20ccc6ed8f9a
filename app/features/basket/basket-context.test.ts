import { describe, expect, it } from "vitest";
import { applyChanges, changesNotIn, itemsDelta, type TrackedChange } from "./basket-context";

const change = (id: number, revision?: number, owner: string | null = null): TrackedChange => ({
  id,
  action: "add",
  productId: "12321341",
  owner,
  revision,
});

describe("which basket changes a view of the basket does not show yet", () => {
  it("keeps a change in flight on top of any data", () => {
    expect(changesNotIn([change(1)], { owner: null, revision: 7 })).toHaveLength(1);
  });

  it("keeps an answered change on data read before it, and drops it from data read at or after it", () => {
    const answered = change(1, 3);
    // Data from a revalidation that read the basket before the change committed, arriving after the answer.
    expect(changesNotIn([answered], { owner: null, revision: 2 })).toEqual([answered]);
    expect(changesNotIn([answered], { owner: null, revision: 3 })).toEqual([]);
    expect(changesNotIn([answered], { owner: null, revision: 4 })).toEqual([]);
  });

  it("never shows one owner's change on another owner's basket (signed in or out meanwhile)", () => {
    expect(
      changesNotIn([change(1, 3, null), change(2, undefined, null)], { owner: "ada@example.com", revision: 0 }),
    ).toEqual([]);
  });
});

describe("the basket as the shopper should see it before the server answers", () => {
  const book = { product: { id: "book", priceCents: 1196 }, quantity: 2, lineCents: 2392 };
  const echo = { product: { id: "echo", priceCents: 9899 }, quantity: 1, lineCents: 9899 };

  it("moves the item count by what each change adds or takes out, as the line was shown", () => {
    expect(itemsDelta({ action: "add", productId: "book" })).toBe(1);
    expect(itemsDelta({ action: "remove", productId: "book", shownQuantity: 3 })).toBe(-3);
    expect(itemsDelta({ action: "quantity", productId: "book", quantity: 2, shownQuantity: 5 })).toBe(-3);
  });

  it("applies changes to the lines in the order they were made, with line totals", () => {
    const lines = applyChanges(
      [book, echo],
      [
        { action: "quantity", productId: "book", quantity: 5, shownQuantity: 2 },
        { action: "add", productId: "book" },
        { action: "remove", productId: "echo", shownQuantity: 1 },
        { action: "add", productId: "not-here" },
      ],
    );
    expect(lines).toEqual([{ ...book, quantity: 6, lineCents: 6 * 1196 }]);
  });
});
