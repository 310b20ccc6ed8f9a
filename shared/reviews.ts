// Reviews as pages show them: the lengths, the page size, the summary of ratings and who may review.

/** Reviews shown per page of a product's reviews, newest first. */
export const REVIEWS_PAGE_SIZE = 10;
export const REVIEW_HEADLINE_MAX = 150;
export const REVIEW_BODY_MAX = 5_000;

/** The sentence shown instead of the form to anybody without a qualifying order. */
export const REVIEW_NOT_ELIGIBLE = "You can review products you have bought.";

export type ReviewInput = { rating: number; headline: string; body: string };

/** One review as the product page shows it. */
export interface ReviewView {
  id: string;
  rating: number;
  headline: string;
  body: string;
  /** "Jane D." */
  reviewerName: string;
  /** ISO 8601: when it was first written. */
  createdAt: string;
}

/** A product's reviews in figures: how many, the unrounded average, and how many gave each number of stars. */
export interface ReviewSummary {
  count: number;
  /** Null without a visible review. */
  average: number | null;
  /** Index 0 is one star, index 4 five stars. */
  starCounts: [number, number, number, number, number];
}

/** The figures from a list of visible ratings (what the database's average and grouping compute, as a pure function). */
export function summariseRatings(ratings: readonly number[]): ReviewSummary {
  const starCounts: ReviewSummary["starCounts"] = [0, 0, 0, 0, 0];
  for (const rating of ratings) starCounts[rating - 1]! += 1;
  const count = ratings.length;
  return { count, average: count === 0 ? null : ratings.reduce((sum, rating) => sum + rating, 0) / count, starCounts };
}

/**
 * Each star level's share as whole percentages that add up to 100 (largest remainder), so five bars never read
 * 101% or 99% in all. Zero reviews: all zero.
 */
export function starPercentages(starCounts: readonly number[]): number[] {
  const total = starCounts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return starCounts.map(() => 0);
  const exact = starCounts.map((count) => (count * 100) / total);
  const floors = exact.map(Math.floor);
  let left = 100 - floors.reduce((sum, value) => sum + value, 0);
  const order = exact
    .map((value, index) => ({ index, remainder: value - Math.floor(value) }))
    .sort((a, b) => b.remainder - a.remainder || b.index - a.index);
  for (const { index } of order) {
    if (left <= 0) break;
    floors[index]! += 1;
    left -= 1;
  }
  return floors;
}

/** A rating to the nearest half star, as cards draw it (4.25 -> 4.5, 4.24 -> 4). */
export function toHalfStar(rating: number): number {
  return Math.round(rating * 2) / 2;
}

/** "4.3 out of 5": the average to one decimal, as the product page states it. */
export function formatAverage(average: number): string {
  return `${(Math.round(average * 10) / 10).toFixed(1)} out of 5`;
}

/** "12 global ratings", "1 global rating". */
export function formatRatingCount(count: number): string {
  return `${String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} global rating${count === 1 ? "" : "s"}`;
}

/** "Jane D.": a delivery name's first word and the last word's initial; one word stays whole. */
export function reviewerNameFrom(fullName: string | null | undefined): string {
  const words = (fullName ?? "").trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "Storefront customer";
  const first = words[0]!.slice(0, 40);
  if (words.length === 1) return first;
  const initial = [...words.at(-1)!][0]!.toUpperCase();
  return `${first} ${initial}.`;
}

/** "November 21, 2026" in UTC: a review's date is a day, the same for every reader. */
export function formatReviewDate(iso: string): string {
  const date = new Date(iso);
  const months = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
  ];
  return `${months[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}
