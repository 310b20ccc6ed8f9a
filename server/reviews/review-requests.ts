// Review requests: the sweep that decides once per shipped order whether to e-mail "How was your …?", and does so
// through the outbox.

import { sql } from "kysely";
import type { DB } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { EmailPreferences } from "#server/email/email-preferences";
import { every } from "#server/background/every";
import type { Logger } from "#server/logger";
import { readOrderItem } from "#shared/orders";

/** How often a running instance looks for orders due a review request. */
export const REVIEW_REQUEST_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/**
 * Orders shipped longer ago than the delay plus this are never asked about: a shop that upgrades (or a sweep that
 * was stopped for weeks) does not e-mail every old customer at once.
 */
export const REVIEW_REQUEST_LATEST_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 100;

export interface ReviewRequestOptions {
  db: DB;
  email: EmailOutbox;
  preferences: EmailPreferences;
  logger: Logger;
  /** REVIEW_REQUEST_DAYS: days after an order is marked shipped. */
  days: number;
  now?: () => Date;
}

/**
 * The review request: "How was your {product}?" REVIEW_REQUEST_DAYS after an order is marked shipped, once per order.
 * Each order due is decided once, by whichever instance inserts its review_requests row first (the row, the e-mail
 * and its unsubscribe token commit together); it is skipped, with no e-mail, when the order has no account (only an
 * account can review), its address opted out of review requests, or every product in it is reviewed already or
 * no longer sold. An order refunded or cancelled after shipping is not "shipped" and is not asked about.
 */
export function createReviewRequests({
  db,
  email,
  preferences,
  logger,
  days,
  now = () => new Date(),
}: ReviewRequestOptions) {
  async function dueOrders(): Promise<string[]> {
    const latest = new Date(now().getTime() - days * DAY_MS);
    const earliest = new Date(latest.getTime() - REVIEW_REQUEST_LATEST_DAYS * DAY_MS);
    const rows = await db
      .selectFrom("orders")
      .select("orders.id")
      .where("orders.status", "=", "shipped")
      .where(({ exists, selectFrom, not }) =>
        not(
          exists(
            selectFrom("review_requests").select("order_id").whereRef("review_requests.order_id", "=", "orders.id"),
          ),
        ),
      )
      .where(
        sql<boolean>`(select min(created_at) from order_status_history where order_id = orders.id and status = 'shipped') between ${earliest} and ${latest}`,
      )
      .orderBy("orders.paid_at")
      .limit(BATCH)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Decides one order: true when this call wrote its request (or its skip), false when another did first. */
  async function decide(orderId: string): Promise<"sent" | "skipped" | "taken"> {
    return db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto("review_requests")
        .values({ order_id: orderId, outcome: "skipped" })
        .onConflict((conflict) => conflict.column("order_id").doNothing())
        .returning("order_id")
        .executeTakeFirst();
      if (!claimed) return "taken";
      const order = await trx
        .selectFrom("orders")
        .innerJoin("users", "users.id", "orders.user_id")
        .select(["orders.user_id", "orders.items", "users.email"])
        .where("orders.id", "=", orderId)
        .executeTakeFirst();
      if (!order?.user_id) return "skipped";
      if (await preferences.isOptedOut(trx, order.email, "review-requests")) return "skipped";
      const productIds = [...new Set(order.items.map(readOrderItem).map((item) => item.productId))];
      if (productIds.length === 0) return "skipped";
      const [products, reviewed] = await Promise.all([
        trx
          .selectFrom("products")
          .select(["id", "title"])
          .where("id", "in", productIds)
          .where("status", "=", "active")
          .execute(),
        trx
          .selectFrom("reviews")
          .select("product_id")
          .where("user_id", "=", order.user_id)
          .where("product_id", "in", productIds)
          .execute(),
      ]);
      const reviewedIds = new Set(reviewed.map((row) => row.product_id));
      const titles = new Map(products.map((product) => [product.id, product.title]));
      const toReview = productIds
        .filter((id) => titles.has(id) && !reviewedIds.has(id))
        .map((id) => ({ id, title: titles.get(id)! }));
      if (toReview.length === 0) return "skipped";
      const unsubscribeToken = await preferences.issueUnsubscribeToken(trx, order.email, "review-requests");
      await email.enqueueReviewRequest(trx, { orderId, recipient: order.email, products: toReview, unsubscribeToken });
      await trx.updateTable("review_requests").set({ outcome: "sent" }).where("order_id", "=", orderId).execute();
      return "sent";
    });
  }

  async function runOnce(): Promise<{ sent: number; skipped: number }> {
    const counts = { sent: 0, skipped: 0 };
    for (;;) {
      const due = await dueOrders();
      for (const orderId of due) {
        const outcome = await decide(orderId);
        if (outcome !== "taken") counts[outcome] += 1;
      }
      if (due.length < BATCH) return counts;
    }
  }

  const sweep = every(REVIEW_REQUEST_SWEEP_INTERVAL_MS, runOnce, { logger, name: "reviews: review requests" });

  return {
    runOnce,
    start: sweep.start,
    stop: sweep.stop,
  };
}

export type ReviewRequests = ReturnType<typeof createReviewRequests>;
