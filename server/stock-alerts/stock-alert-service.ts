import { sql, type OnConflictBuilder } from "kysely";
import type { Database } from "../db/schema";
import { z } from "zod";
import type { RateLimiter } from "../accounts/rate-limiter";
import { tooManyRequests } from "../accounts/rate-limiter";
import type { DB, Writer } from "../db/client";
import type { EmailOutbox } from "../email/email-outbox";
import type { EmailPreferences } from "../email/email-preferences";
import { newToken, sha256Base64url, TOKEN_PATTERN } from "../tokens";
import { AppError } from "../../shared/errors";

const HOUR_MS = 60 * 60 * 1000;
/** Against abuse: alerts one address may ask for per hour, and one client address. */
export const STOCK_ALERT_LIMITS = {
  perEmail: { name: "stock-alert:email", limit: 10, windowMs: HOUR_MS },
  perIp: { name: "stock-alert:ip", limit: 30, windowMs: HOUR_MS },
} as const;

const emailSchema = z.email().max(254);

/** Two requests for the same address and product at once: the second finds the first's row (stock_alerts_once). */
const keptOnce = (conflict: OnConflictBuilder<Database, "stock_alerts">) => conflict.columns(["product_id", "email"]).where("notified_at", "is", null).doNothing();

/** What the shopper is told after asking. */
export type StockAlertOutcome = "subscribed" | "check-email";
export const STOCK_ALERT_SENTENCES = {
  subscribed: "We'll e-mail you when it's back.",
  "check-email": "Check your e-mail to confirm your alert.",
} as const satisfies Record<StockAlertOutcome, string>;

/**
 * "Notify me when available", kept by product (the stock model adds a variant id): the only writer of stock_alerts.
 * Not yet reachable from a page: the product page offers it once a product can be out of stock, and the inventory
 * module calls `notifyBackInStock` inside the transaction in which a product's available quantity goes from 0 or
 * below to above 0 (an operator's edit, an import, a restock on refund, a released reservation).
 */
export function createStockAlertService(db: DB, { email, preferences, rateLimiter }: { email: EmailOutbox; preferences: EmailPreferences; rateLimiter: RateLimiter }) {
  return {
    /**
     * An alert for the address and product. A signed-in shopper asking for their own confirmed address is
     * subscribed at once; anybody else gets "Confirm your alert". The same address and product are kept once.
     */
    async subscribe({ productId, address, user, ip }: { productId: string; address: string; user: { email: string; isEmailVerified?: boolean } | null; ip: string }): Promise<StockAlertOutcome> {
      const parsed = emailSchema.safeParse(address.trim());
      if (!parsed.success) throw new AppError("BAD_REQUEST", "Enter an e-mail address, like name@example.com.");
      const recipient = parsed.data.toLowerCase();
      const [perEmail, perIp] = await rateLimiter.hitAll([
        { rule: STOCK_ALERT_LIMITS.perEmail, subject: recipient },
        { rule: STOCK_ALERT_LIMITS.perIp, subject: ip },
      ]);
      const refused = [perEmail, perIp].find((result) => !result!.allowed);
      if (refused) throw tooManyRequests("TOO_MANY_ATTEMPTS", "Too many alerts were asked for.", refused.retryAfterMs);
      const isConfirmedAtOnce = user !== null && user.isEmailVerified !== false && user.email.toLowerCase() === recipient;
      return db.transaction().execute(async (trx) => {
        const product = await trx.selectFrom("products").select(["title", "status"]).where("id", "=", productId).executeTakeFirst();
        if (!product || product.status !== "active") throw new AppError("NOT_FOUND", "There is no such product.");
        const existing = await trx
          .selectFrom("stock_alerts")
          .select(["id", "confirmed_at"])
          .where("product_id", "=", productId)
          .where("email", "=", recipient)
          .where("notified_at", "is", null)
          .forUpdate()
          .executeTakeFirst();
        if (existing?.confirmed_at) return "subscribed";
        if (isConfirmedAtOnce) {
          if (existing) await trx.updateTable("stock_alerts").set({ confirmed_at: sql`now()`, confirm_token_hash: null }).where("id", "=", existing.id).execute();
          else await trx.insertInto("stock_alerts").values({ product_id: productId, email: recipient, confirm_token_hash: null, confirmed_at: new Date(), notified_at: null }).onConflict(keptOnce).execute();
          return "subscribed";
        }
        const token = newToken();
        if (existing) await trx.updateTable("stock_alerts").set({ confirm_token_hash: sha256Base64url(token) }).where("id", "=", existing.id).execute();
        else await trx.insertInto("stock_alerts").values({ product_id: productId, email: recipient, confirm_token_hash: sha256Base64url(token), confirmed_at: null, notified_at: null }).onConflict(keptOnce).execute();
        await email.enqueueStockAlertConfirmation(trx, { recipient, productTitle: product.title, token });
        return "check-email";
      });
    },

    /** The "Confirm your alert" link: true when it confirmed an alert (or had already). */
    async confirm(token: string): Promise<boolean> {
      if (!TOKEN_PATTERN.test(token)) return false;
      const row = await db
        .updateTable("stock_alerts")
        .set({ confirmed_at: sql`coalesce(confirmed_at, now())` })
        .where("confirm_token_hash", "=", sha256Base64url(token))
        .returning("id")
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * In the transaction that brings the product back in stock: every confirmed, unused alert of it is marked used
     * and its e-mail written, in that transaction. The update takes the rows' locks, so two instances bringing the
     * same product back at once send each alert once. Addresses that unsubscribed from stock alerts are used up
     * without an e-mail. Returns how many e-mails were written.
     */
    async notifyBackInStock(trx: Writer, productId: string): Promise<number> {
      const product = await trx.selectFrom("products").select(["title", "slug", "status"]).where("id", "=", productId).executeTakeFirst();
      if (!product || product.status !== "active") return 0;
      const used = await trx
        .updateTable("stock_alerts")
        .set({ notified_at: sql`now()` })
        .where("product_id", "=", productId)
        .where("confirmed_at", "is not", null)
        .where("notified_at", "is", null)
        .returning(["id", "email"])
        .execute();
      let written = 0;
      for (const alert of used) {
        if (await preferences.isOptedOut(trx, alert.email, "stock-alerts")) continue;
        const unsubscribeToken = await preferences.issueUnsubscribeToken(trx, alert.email, "stock-alerts");
        if (await email.enqueueBackInStock(trx, { alertId: alert.id, recipient: alert.email, product, unsubscribeToken })) written += 1;
      }
      return written;
    },
  };
}

export type StockAlertService = ReturnType<typeof createStockAlertService>;
