import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalAmount, formatCents, sumCents } from "./money";

describe("formatCents", () => {
  it("shows dollars with two decimals and thousands separators", () => {
    expect(formatCents(109498)).toBe("$1,094.98");
    expect(formatCents(23900)).toBe("$239.00");
    expect(formatCents(1196)).toBe("$11.96");
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(123456789)).toBe("$1,234,567.89");
  });

  it("writes what Intl.NumberFormat writes for US dollars, for any amount up to ten billion dollars either way", () => {
    const intl = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
    // Up to 10^12 cents, cents / 100 is still exact enough for Intl to round to the same cent.
    const cents = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: -100_000, max: 100_000 }));
    fc.assert(
      fc.property(cents, (amount) => formatCents(amount) === intl.format(amount / 100)),
      { numRuns: 20_000 },
    );
    for (const edge of [0, 1, 9, 10, 99, 100, 101, 99_999, 100_000, 99_999_999, 100_000_000, -1, -100_000]) {
      expect(formatCents(edge)).toBe(intl.format(edge / 100));
    }
  });

  it("stays exact beyond where a float in dollars would not", () => {
    expect(formatCents(Number.MAX_SAFE_INTEGER)).toBe("$90,071,992,547,409.91");
  });

  it("refuses anything that is not a whole number of cents", () => {
    expect(() => formatCents(11.96)).toThrow(TypeError);
    expect(() => formatCents(Number.NaN)).toThrow(TypeError);
  });
});

describe("sumCents", () => {
  it("adds in integer cents, so sums a float would get wrong come out exact", () => {
    // 0.1 + 0.2 style errors: 11.96 * 3 and 11.96 + 98.99 in floats are not what a shopper expects.
    expect(sumCents([1196, 1196, 1196])).toBe(3588);
    expect(formatCents(sumCents([1196, 1196, 1196]))).toBe("$35.88");
    expect(formatCents(sumCents([1196, 9899]))).toBe("$110.95");
    expect(sumCents([])).toBe(0);
  });
});

describe("decimalAmount", () => {
  it("writes cents as a plain decimal string for machines", () => {
    expect([5, 1196, 109498, 123456789].map(decimalAmount)).toEqual(["0.05", "11.96", "1094.98", "1234567.89"]);
  });
});
