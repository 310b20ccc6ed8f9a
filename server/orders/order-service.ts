import { sql } from "kysely";
import { z } from "zod";
import type { BasketOwner } from "../basket/basket-service";
import type { DB, Writer } from "../db/client";
import { ORDERS_PAGE_SIZE, readOrderItem, type OrderView } from "../../shared/orders";

/** A position in the newest-first list: the last order of the previous page. */
export interface OrdersCursor {
  createdAt: Date;
  id: string;
}

/**
 * "2026-11-21T15:34:00.000Z~pi_123": opaque to the shopper, parsed strictly here; anything else means page one.
 * The time is the shop's own toISOString() of a stored order, so a four-digit year after 1970: a date JavaScript can
 * hold but PostgreSQL cannot (year -271821, year 0) would otherwise fail the query.
 */
const cursorSchema = z
  .string()
  .max(200)
  .transform((value) => value.split("~"))
  .pipe(z.tuple([z.iso.datetime({ precision: 3 }), z.string().regex(/^[A-Za-z0-9_]{1,100}$/)]))
  .transform(([iso, id]) => ({ createdAt: new Date(iso), id }))
  .refine(({ createdAt }) => createdAt >= EARLIEST_ORDER && createdAt < AFTER_LATEST_ORDER);
const EARLIEST_ORDER = new Date("1970-01-01T00:00:00.000Z");
const AFTER_LATEST_ORDER = new Date(Date.UTC(10_000, 0, 1));

function encodeCursor(cursor: OrdersCursor): string {
  return `${cursor.createdAt.toISOString()}~${cursor.id}`;
}

function decodeCursor(value: string | null): OrdersCursor | null {
  const parsed = cursorSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function createOrderService(db: DB) {
  return {
    /**
     * One page of the owner's orders, newest first, after the cursor of the previous page's last order. Keyset pagination on (created_at, id), served by the
     * orders_*_newest indexes, so page 50 costs what page 1 does however many orders there are.
     */
    async listOrders(owner: BasketOwner | null, beforeCursor: string | null): Promise<{ orders: OrderView[]; next: string | null; isFirstPage: boolean }> {
      const before = decodeCursor(beforeCursor);
      // A cursor that does not parse shows the first page, and says so.
      const isFirstPage = before === null;
      if (!owner) return { orders: [], next: null, isFirstPage };
      const column = "userId" in owner ? "user_id" : "session_id";
      const value = "userId" in owner ? owner.userId : owner.sessionId;
      let query = db
        .selectFrom("orders")
        .select(["id", "amount_cents", "created_at", "items"])
        .where(column, "=", value)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(ORDERS_PAGE_SIZE + 1);
      if (before) query = query.where(sql<boolean>`(created_at, id) < (${before.createdAt}, ${before.id})`);
      const rows = await query.execute();
      const page = rows.slice(0, ORDERS_PAGE_SIZE);
      const last = page.at(-1);
      return {
        orders: page.map((row) => ({ id: row.id, amountCents: row.amount_cents, createdAt: row.created_at.toISOString(), items: row.items.map(readOrderItem) })),
        next: rows.length > ORDERS_PAGE_SIZE && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
        isFirstPage,
      };
    },

    /**
     * At account deletion, in its transaction: the account's orders and paid payments stay for the shop's books but
     * name nobody. Orders hold no personal data today beyond the link to the account; what else they come to hold (a
     * delivery address, a name) is blanked here too. Payments still open are left to the account's deletion.
     */
    async anonymiseOrdersOf(writer: Writer, userId: string): Promise<void> {
      await writer.updateTable("orders").set({ user_id: null, session_id: null }).where("user_id", "=", userId).execute();
      await writer
        .updateTable("checkout_payments")
        .set({ user_id: null, session_id: null })
        .where("user_id", "=", userId)
        .where("status", "in", ["paid", "needs_review"])
        .execute();
    },

    /** At sign-in: a guest's orders (and payments in progress) join the account. */
    async adoptGuestOrders(sessionId: string, userId: string): Promise<void> {
      await db.updateTable("orders").set({ user_id: userId, session_id: null }).where("session_id", "=", sessionId).execute();
      await db.updateTable("checkout_payments").set({ user_id: userId, session_id: null }).where("session_id", "=", sessionId).execute();
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
