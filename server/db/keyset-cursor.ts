/**
 * Keyset paging of the newest-first lists (orders, reviews, the outbox, the audit log): the cursor a page's link
 * carries, and the whole query of a page, so that every list orders, compares and counts its rows the same way.
 */
import { sql, type SelectQueryBuilder } from "kysely";
import { z } from "zod";
import type { Database } from "./schema";

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
/** The columns a list is ordered by: a time and a unique id (qualified when the query joins), and the id's type. */
export interface KeysetOrder {
  at: string;
  id: string;
  /** The id column's type when the cursor's text must be cast to be compared with it. */
  idType?: "uuid";
}

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
    /**
     * One page of a newest-first list: the query (selected and filtered by the caller) ordered by (at, id) descending,
     * after the cursor's row when `after` reads as one, read one row past the page to know whether another follows.
     * `isFirstPage`: the cursor did not read, so the page is the first.
     */
    async readPage<Tables extends keyof Database, Row>(
      query: SelectQueryBuilder<Database, Tables, Row>,
      {
        after,
        pageSize,
        order,
        keyOf,
      }: {
        after: string | null | undefined;
        pageSize: number;
        order: KeysetOrder;
        keyOf: (row: Row) => KeysetCursor;
      },
    ): Promise<{ rows: Row[]; next: string | null; isFirstPage: boolean }> {
      const from = this.decode(after);
      let paged = query
        .orderBy(sql.ref(order.at), "desc")
        .orderBy(sql.ref(order.id), "desc")
        .limit(pageSize + 1);
      if (from) {
        const id = order.idType === "uuid" ? sql`${from.id}::uuid` : sql`${from.id}`;
        paged = paged.where(sql<boolean>`(${sql.ref(order.at)}, ${sql.ref(order.id)}) < (${from.at}, ${id})`);
      }
      return { ...this.page(await paged.execute(), pageSize, keyOf), isFirstPage: from === null };
    },
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
