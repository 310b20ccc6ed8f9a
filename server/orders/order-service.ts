import { sql } from "kysely";
import type { BasketOwner } from "../basket/basket-service";
import type { DB } from "../db/client";
import { ORDERS_PAGE_SIZE, type OrderView } from "../../shared/orders";

/** A position in the newest-first list: the last order of the previous page. */
export interface OrdersCursor {
  createdAt: Date;
  id: string;
}

/** "2026-11-21T15:34:00.000Z~pi_123": opaque to the shopper, parsed strictly here; anything else means page one. */
function encodeCursor(cursor: OrdersCursor): string {
  return `${cursor.createdAt.toISOString()}~${cursor.id}`;
}

function decodeCursor(value: string | null): OrdersCursor | null {
  if (!value || value.length > 200) return null;
  const [iso, id] = value.split("~");
  const createdAt = new Date(iso ?? "");
  if (!id || Number.isNaN(createdAt.getTime()) || !/^[A-Za-z0-9_]{1,100}$/.test(id)) return null;
  return { createdAt, id };
}

export function createOrderService(db: DB) {
  return {
    /**
     * One page of the owner's orders, newest first, after the cursor of the previous page's last order. Keyset pagination on (created_at, id), served by the
     * orders_*_newest indexes, so page 50 costs what page 1 does however many orders there are.
     */
    async listOrders(owner: BasketOwner | null, beforeCursor: string | null): Promise<{ orders: OrderView[]; next: string | null }> {
      const before = decodeCursor(beforeCursor);
      if (!owner) return { orders: [], next: null };
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
        orders: page.map((row) => ({ id: row.id, amountCents: row.amount_cents, createdAt: row.created_at.toISOString(), items: row.items })),
        next: rows.length > ORDERS_PAGE_SIZE && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
      };
    },

    /** At sign-in: a guest's orders (and payments in progress) join the account. */
    async adoptGuestOrders(sessionId: string, userId: string): Promise<void> {
      await db.updateTable("orders").set({ user_id: userId, session_id: null }).where("session_id", "=", sessionId).execute();
      await db.updateTable("checkout_payments").set({ user_id: userId, session_id: null }).where("session_id", "=", sessionId).execute();
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
