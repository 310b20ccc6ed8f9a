// Money as text: integer cents formatted without Intl, the only place amounts become words.

/**
 * Money is integer cents (USD) everywhere; it becomes text only here, at the edge.
 *
 * Written out by hand rather than with Intl.NumberFormat, which gives the same text: the first NumberFormat a
 * browser tab builds loads ICU's number data, 20–110 ms of main thread on the bench machine before any slowdown,
 * and every page formats a price while it hydrates. From whole cents the text is exact at any size, too (no
 * division into a float). A test holds it to Intl's output.
 */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new TypeError(`Money must be a whole number of cents, got ${cents}`);
  const magnitude = Math.abs(cents);
  const remainder = magnitude % 100;
  const dollars = String((magnitude - remainder) / 100).replace(THOUSANDS, ",");
  return `${cents < 0 ? "-" : ""}$${dollars}.${String(remainder).padStart(2, "0")}`;
}

/** A price as a plain decimal string, "1094.98", as schema.org's Offer and other machine formats want it. */
export function decimalAmount(cents: number): string {
  return formatCents(cents).replace(/[$,]/g, "");
}

/** Every position followed by a whole number of three-digit groups, except the start: where the commas go. */
const THOUSANDS = /\B(?=(\d{3})+$)/g;

/** Adds amounts in cents; integers in, an integer out, so no float ever touches a total. */
export function sumCents(amounts: Iterable<number>): number {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
}
