import { describe, expect, it } from "vitest";
import { changesNotIn, type TrackedChange } from "./basket-context";

const change = (id: number, revision?: number, owner: string | null = null): TrackedChange => ({ id, action: "add", productId: "12321341", owner, revision });

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
    expect(changesNotIn([change(1, 3, null), change(2, undefined, null)], { owner: "ada@example.com", revision: 0 })).toEqual([]);
  });
});
