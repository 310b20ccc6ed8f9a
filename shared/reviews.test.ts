import { describe, expect, it } from "vitest";
import { reviewFormSchema } from "./review-schemas";
import {
  formatAverage,
  formatRatingCount,
  reviewerNameFrom,
  starPercentages,
  summariseRatings,
  toHalfStar,
} from "./reviews";

describe("a product's review figures", () => {
  it("averages the ratings unrounded and counts each star level", () => {
    expect(summariseRatings([5, 4, 4, 3, 5, 5, 1])).toEqual({ count: 7, average: 27 / 7, starCounts: [1, 0, 1, 2, 3] });
    expect(summariseRatings([])).toEqual({ count: 0, average: null, starCounts: [0, 0, 0, 0, 0] });
  });

  it("states the average to one decimal and the count as the page shows them", () => {
    expect(formatAverage(27 / 7)).toBe("3.9 out of 5");
    expect(formatAverage(4.25)).toBe("4.3 out of 5");
    expect(formatAverage(4)).toBe("4.0 out of 5");
    expect(formatRatingCount(12)).toBe("12 global ratings");
    expect(formatRatingCount(1)).toBe("1 global rating");
    expect(formatRatingCount(12_345)).toBe("12,345 global ratings");
  });

  it("gives each star level a whole percentage, and the five add up to 100", () => {
    // Three equal shares: the spare point goes to the highest star level among them.
    expect(starPercentages([1, 1, 1, 0, 0])).toEqual([33, 33, 34, 0, 0]);
    for (const counts of [
      [1, 1, 1, 0, 0],
      [0, 0, 1, 1, 1],
      [3, 3, 3, 3, 3],
      [1, 2, 3, 4, 7],
      [0, 0, 0, 0, 12],
      [997, 1, 1, 1, 0],
    ]) {
      const percentages = starPercentages(counts);
      expect(
        percentages.reduce((sum, value) => sum + value, 0),
        counts.join(","),
      ).toBe(100);
      const total = counts.reduce((sum, value) => sum + value, 0);
      counts.forEach((count, index) => expect(Math.abs(percentages[index]! - (count * 100) / total)).toBeLessThan(1));
    }
    expect(starPercentages([0, 0, 0, 0, 12])).toEqual([0, 0, 0, 0, 100]);
    expect(starPercentages([0, 0, 0, 0, 0])).toEqual([0, 0, 0, 0, 0]);
  });

  it("draws a rating to the nearest half star", () => {
    expect([4.24, 4.25, 4.74, 4.75, 1, 27 / 7].map(toHalfStar)).toEqual([4, 4.5, 4.5, 5, 1, 4]);
  });

  it("names a reviewer by first name and last initial", () => {
    expect(reviewerNameFrom("Grace Brewster Hopper")).toBe("Grace H.");
    expect(reviewerNameFrom("  ada   lovelace ")).toBe("ada L.");
    expect(reviewerNameFrom("Cher")).toBe("Cher");
    expect(reviewerNameFrom(null)).toBe("Storefront customer");
  });
});

describe("the review form", () => {
  const valid = { intent: "review", rating: "4", headline: "Good", body: "" };
  it("takes a rating of 1 to 5, a headline and up to 5,000 characters of text", () => {
    expect(reviewFormSchema.parse({ ...valid, body: "x".repeat(5_000) })).toMatchObject({
      rating: 4,
      headline: "Good",
    });
    expect(reviewFormSchema.safeParse({ ...valid, body: "x".repeat(5_001) }).success).toBe(false);
    for (const rating of ["0", "6", "4.5", "", "five"])
      expect(reviewFormSchema.safeParse({ ...valid, rating }).success, rating).toBe(false);
    expect(reviewFormSchema.safeParse({ ...valid, headline: " \n " }).success).toBe(false);
    expect(reviewFormSchema.safeParse({ ...valid, extra: "1" }).success).toBe(false);
  });
});
