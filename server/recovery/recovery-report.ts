// Basket recovery on the dashboard: baskets reminded, shoppers who came back, and the orders and sales recovered within
// 7 days.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import { RESTORE_LINK_DAYS } from "./basket-reminders";

export interface RecoveryFigures {
  /** First reminders sent in the period. */
  reminded: number;
  /** Reminders sent in the period whose "Return to your basket" was followed. */
  returned: number;
  /** Orders paid in the period within RESTORE_LINK_DAYS of a reminder to their owner or address, each counted once. */
  recoveredOrders: number;
  recoveredCents: number;
}

/**
 * The console's basket recovery figures for a period. A recovered order is one paid within RESTORE_LINK_DAYS after
 * a reminder to the same account, browser session or e-mail address; an order follows several reminders but is
 * counted once, and only orders of the mode the shop takes payments in count (as on the sales dashboard).
 */
export function createRecoveryReport(db: DB, { livemode }: { livemode: boolean }) {
  return {
    async figures(start: Date, end: Date): Promise<RecoveryFigures> {
      const [reminders, recovered] = await Promise.all([
        db
          .selectFrom("basket_reminders")
          .select([
            sql<number>`count(*) filter (where step = 1)::int`.as("reminded"),
            sql<number>`count(*) filter (where returned_at is not null)::int`.as("returned"),
          ])
          .where("outcome", "=", "sent")
          .where("decided_at", ">=", start)
          .where("decided_at", "<", end)
          .executeTakeFirstOrThrow(),
        sql<{ orders: number; cents: string | number }>`
          select count(*)::int as orders, coalesce(sum(o.amount_cents), 0)::bigint as cents
          from orders o
          left join users u on u.id = o.user_id
          where o.paid_at >= ${start} and o.paid_at < ${end} and coalesce(o.livemode, false) = ${livemode}
            and exists (
              select 1 from basket_reminders r
              where r.outcome = 'sent' and r.decided_at <= o.paid_at
                and r.decided_at > o.paid_at - make_interval(days => ${RESTORE_LINK_DAYS})
                and (r.user_id = o.user_id or r.session_id = o.session_id
                     or r.email = lower(coalesce(o.contact_email, u.email))))`.execute(db),
      ]);
      const row = recovered.rows[0];
      return {
        reminded: reminders.reminded,
        returned: reminders.returned,
        recoveredOrders: row?.orders ?? 0,
        recoveredCents: Number(row?.cents ?? 0),
      };
    },
  };
}

export type RecoveryReport = ReturnType<typeof createRecoveryReport>;
