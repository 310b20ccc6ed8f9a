import { describe, expect, it } from "vitest";
import { formatCents, sumCents } from "./money";

describe("formatCents", () => {
  it("shows dollars with two decimals and thousands separators", () => {
    expect(formatCents(109498)).toBe("$1,094.98");
    expect(formatCents(23900)).toBe("$239.00");
    expect(formatCents(1196)).toBe("$11.96");
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(123456789)).toBe("$1,234,567.89");
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
