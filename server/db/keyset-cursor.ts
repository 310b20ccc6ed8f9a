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
    decode(value: string | null | undefined): KeysetCursor | null {
      const parsed = schema.safeParse(value);
      return parsed.success ? parsed.data : null;
    },
    /**
     * One page of rows read with `limit(pageSize + 1)`: the first `pageSize`, and the cursor after the last of them
     * when the extra row says there is more (null on the last page).
     */
    page<Row>(
      rows: readonly Row[],
      pageSize: number,
      keyOf: (row: Row) => KeysetCursor,
    ): { rows: Row[]; next: string | null } {
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      if (rows.length <= pageSize || last === undefined) return { rows: page, next: null };
      const { at, id } = keyOf(last);
      return { rows: page, next: `${at.toISOString()}~${id}` };
    },
  };
}
