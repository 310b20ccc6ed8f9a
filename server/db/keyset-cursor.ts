import { z } from "zod";

/** A position in a newest-first list ordered by (a timestamp, id): the last row of the previous page. */
export interface KeysetCursor {
  at: Date;
  id: string;
}

const EARLIEST = new Date("1970-01-01T00:00:00.000Z");
const AFTER_LATEST = new Date(Date.UTC(10_000, 0, 1));

/**
 * "2026-11-21T15:34:00.000Z~pi_123": opaque to its reader, parsed strictly; anything else means page one. The time is
 * the shop's own toISOString() of a stored row, so a four-digit year after 1970: a date JavaScript can hold but
 * PostgreSQL cannot (year -271821, year 0) would otherwise fail the query. `idPattern` is what the list's ids look
 * like (an intent id, a uuid), so a cursor never reaches the database with an id its column cannot hold.
 */
export function keysetCursor(idPattern: RegExp) {
  const schema = z
    .string()
    .max(200)
    .transform((value) => value.split("~"))
    .pipe(z.tuple([z.iso.datetime({ precision: 3 }), z.string().regex(idPattern)]))
    .transform(([iso, id]): KeysetCursor => ({ at: new Date(iso), id }))
    .refine(({ at }) => at >= EARLIEST && at < AFTER_LATEST);
  return {
    encode: (at: Date, id: string): string => `${at.toISOString()}~${id}`,
    decode(value: string | null | undefined): KeysetCursor | null {
      const parsed = schema.safeParse(value);
      return parsed.success ? parsed.data : null;
    },
  };
}
