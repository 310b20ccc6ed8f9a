/**
 * Money is integer cents (USD) everywhere; it becomes text only here, at the edge.
 * One formatter, made once: Intl.NumberFormat is costly to construct.
 */
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** 109498 -> "$1,094.98", 23900 -> "$239.00". */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new TypeError(`Money must be a whole number of cents, got ${cents}`);
  return usd.format(cents / 100);
}

/** Adds amounts in cents; integers in, an integer out, so no float ever touches a total. */
export function sumCents(amounts: Iterable<number>): number {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
}
