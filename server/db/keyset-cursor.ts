/**
 * Keyset paging of the newest-first lists (orders, reviews, the outbox by time; the audit log by its id): the cursor
 * a page's link carries, and the whole query of a page, so that every list orders, compares and counts its rows the
 * same way.
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

/** The columns a list is ordered by: a time and a unique id (qualified when the query joins), and the id's type. */
export interface KeysetOrder {
  at: string;
  id: string;
  /** The id column's type when the cursor's text must be cast to be compared with it. */
  idType?: "uuid";
}

/**
 * The first `pageSize` of rows read with `limit(pageSize + 1)`, and the cursor after the last of them when the extra
 * row says there is more (null on the last page).
 */
function slicePage<Row>(
  rows: readonly Row[],
  pageSize: number,
  cursorOf: (row: Row) => string,
): { rows: Row[]; next: string | null } {
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  if (rows.length <= pageSize || last === undefined) return { rows: page, next: null };
  return { rows: page, next: cursorOf(last) };
}

/**
 * A list ordered by (a time, id). Its cursor, "2026-11-21T15:34:00.000Z~pi_123", is opaque to its reader and parsed
 * strictly; anything else means page one. The time is the shop's own toISOString() of a stored row, so a four-digit
 * year after 1970: a date JavaScript can hold but PostgreSQL cannot (year -271821, year 0) would otherwise fail the
 * query. `idPattern` is what the list's ids look like (an intent id, a uuid), so a cursor never reaches the database
 * with an id its column cannot hold. The time travels in milliseconds (a Date's) while PostgreSQL keeps
 * microseconds: the audit log, whose entries come many to a millisecond, pages by its id alone instead (keysetById).
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
      return slicePage(rows, pageSize, (row) => {
        const { at, id } = keyOf(row);
        return `${at.toISOString()}~${id}`;
      });
    },
  };
}

/** The largest bigint: a longer run of digits is no id of a bigint column. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * A list ordered by its bigint identity alone, newest first (the audit log): a newer row has a larger id, so the id
 * orders as the time does and the cursor is the id ("1234"). No time travels in the cursor, so nothing is lost
 * between a JavaScript Date's milliseconds and PostgreSQL's microseconds: rows written within one millisecond (one
 * transaction's, which share its now()) are each listed once.
 */
export function keysetById() {
  const decode = (value: string | null | undefined): string | null =>
    typeof value === "string" && /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT ? value : null;
  return {
    decode,
    /** One page of the query ordered by `id` descending, after the cursor's id when `after` reads as one. */
    async readPage<Tables extends keyof Database, Row>(
      query: SelectQueryBuilder<Database, Tables, Row>,
      {
        after,
        pageSize,
        id,
        idOf,
      }: {
        after: string | null | undefined;
        pageSize: number;
        id: string;
        idOf: (row: Row) => string;
      },
    ): Promise<{ rows: Row[]; next: string | null; isFirstPage: boolean }> {
      const from = decode(after);
      let paged = query.orderBy(sql.ref(id), "desc").limit(pageSize + 1);
      if (from) paged = paged.where(sql<boolean>`${sql.ref(id)} < ${from}::bigint`);
      return { ...slicePage(await paged.execute(), pageSize, idOf), isFirstPage: from === null };
    },
  };
}
