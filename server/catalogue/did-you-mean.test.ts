import { describe, expect, it } from "vitest";
import { editDistance, suggestQuery } from "./did-you-mean";

const vocabulary = new Map([
  ["stand", 3],
  ["mixer", 2],
  ["monitor", 4],
  ["samsung", 2],
  ["stand", 3],
  ["band", 1],
]);

describe("did you mean", () => {
  it("mends two typos from the catalogue's words", () => {
    expect(suggestQuery("stnad mixr", vocabulary)).toBe("stand mixer");
    expect(suggestQuery("Samsnug moniter", vocabulary)).toBe("samsung monitor");
  });

  it("suggests nothing when every word is known or nothing is close", () => {
    expect(suggestQuery("stand mixer", vocabulary)).toBeNull();
    expect(suggestQuery("zzzzzz", vocabulary)).toBeNull();
    expect(suggestQuery("", vocabulary)).toBeNull();
  });

  it("counts a swap of neighbours as one edit", () => {
    expect(editDistance("stnad", "stand")).toBe(1);
    expect(editDistance("mixr", "mixer")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
});
