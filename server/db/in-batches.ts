// Splitting a long list into batches, so one statement's parameters stay under PostgreSQL's limit.

/** The items in batches of at most `size`: one statement's parameters stay well under PostgreSQL's 65,535. */
export function* inBatches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
