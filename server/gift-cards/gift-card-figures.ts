// Gift cards on the sales dashboard: what was sold in the period and what open cards are owed, a liability rather than
// sales.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import { ordersInMode } from "#server/orders/needs-attention";

/** Gift cards on the dashboard: money owed for later, not sales. */
export interface GiftCardFigures {
  /** Gift cards the period's paid orders bought (of the shop's payment mode), at their price. */
  soldCents: number;
  /** Owed now: what open cards hold (a payment in progress's hold still owed) and cards sold but not yet sent. */
  outstandingCents: number;
}

/**
 * The dashboard's gift card figures. Sold: `gift_card_sales` rows, written in the paid order's transaction. Owed: the
 * cards' ledger rows without holds and their releases (money held for a payment is owed until it is spent), on cards
 * neither disabled nor past their expiry, plus sold cards waiting for their "Send on" day. Cards of orders in the
 * other payment mode are left out; cards issued by hand belong to no order and count in either.
 */
export function createGiftCardFigures(db: DB, livemode: boolean) {
  return async function giftCardFigures(start: Date, end: Date): Promise<GiftCardFigures> {
    const [sold, owedOnCards, unsent] = await Promise.all([
      db
        .selectFrom("gift_card_sales")
        .innerJoin("orders", "orders.id", "gift_card_sales.order_id")
        .select(sql<number>`coalesce(sum(gift_card_sales.amount_cents), 0)::bigint`.as("cents"))
        .where("gift_card_sales.created_at", ">=", start)
        .where("gift_card_sales.created_at", "<", end)
        .where(ordersInMode(livemode))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom("balance_entries")
        .innerJoin("balance_accounts", "balance_accounts.id", "balance_entries.account_id")
        .leftJoin("gift_card_sales", "gift_card_sales.account_id", "balance_accounts.id")
        .leftJoin("orders", "orders.id", "gift_card_sales.order_id")
        .select(sql<number>`coalesce(sum(balance_entries.amount_cents), 0)::bigint`.as("cents"))
        .where("balance_accounts.kind", "=", "gift_card")
        .where("balance_accounts.disabled_at", "is", null)
        .where((where) =>
          where.or([
            where("balance_accounts.expires_at", "is", null),
            where("balance_accounts.expires_at", ">", now()),
          ]),
        )
        .where("balance_entries.kind", "not in", ["hold", "release"])
        .where((where) => where.or([where("gift_card_sales.id", "is", null), ordersInMode(livemode)]))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom("gift_card_sales")
        .innerJoin("orders", "orders.id", "gift_card_sales.order_id")
        .select(sql<number>`coalesce(sum(gift_card_sales.amount_cents), 0)::bigint`.as("cents"))
        .where("gift_card_sales.account_id", "is", null)
        .where("gift_card_sales.cancelled_at", "is", null)
        .where(ordersInMode(livemode))
        .executeTakeFirstOrThrow(),
    ]);
    return {
      soldCents: Number(sold.cents),
      outstandingCents: Number(owedOnCards.cents) + Number(unsent.cents),
    };
  };
}

const now = () => sql<Date>`now()`;
