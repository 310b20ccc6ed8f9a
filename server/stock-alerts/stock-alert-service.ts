// "Notify me when available": subscribing to a variant (confirmed at once or by e-mail), and the e-mails sent, each
// alert once, when inventory says it is back.

import { sql, type OnConflictBuilder } from "kysely";
import type { Database } from "#server/db/schema";
import type { RateLimiter } from "#server/rate-limits/rate-limiter";
import { tooManyRequests } from "#server/rate-limits/rate-limiter";
import type { DB, Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { EmailPreferences } from "#server/email/email-preferences";
import { hasAvailableStock, type InventoryService } from "#server/inventory/inventory-service";
import { newToken, sha256Base64url, TOKEN_PATTERN } from "#server/tokens";
import { AppError } from "#shared/errors";
import { productPath, VARIANT_PARAM } from "#shared/catalogue";
import { stockAlertFormSchema } from "#shared/stock-alert-schemas";
import { BACK_IN_STOCK_ALREADY, NO_SUCH_VARIANT, type StockAlertOutcome } from "#shared/stock-alerts";
import { mailboxOf } from "#shared/mailbox";

const HOUR_MS = 60 * 60 * 1000;
/**
 * Against abuse: alerts one mailbox (an address without its +tag) may ask for per hour, and one client address (as
 * sign-in counts both). And at most one "Confirm your alert" waits unconfirmed per mailbox and day.
 */
export const STOCK_ALERT_LIMITS = {
  perEmail: { name: "stock-alert:email", limit: 10, windowMs: HOUR_MS },
  perIp: { name: "stock-alert:ip", limit: 30, windowMs: HOUR_MS },
} as const;

const emailField = stockAlertFormSchema.shape.email;

/** Two requests for the same address and variant at once: the second finds the first's row (stock_alerts_once). */
const keptOnce = (conflict: OnConflictBuilder<Database, "stock_alerts">) =>
  conflict.columns(["variant_id", "email"]).where("notified_at", "is", null).doNothing();

/** A variant as its alert's e-mails name it: "Classic Tee (M, Black)", and the page that shows that choice. */
interface AlertedVariant {
  title: string;
  path: string;
}

/**
 * "Notify me when available" on one variant: the only writer of stock_alerts. A shopper asks on the product page
 * while the variant is out of stock; the inventory module calls `notifyBackInStock` inside every transaction in
 * which a variant's available quantity goes from 0 or below to above 0 (an operator's edit, an import, a restock on
 * refund, a released reservation), so each alert's e-mail is written once, with the stock change, or not at all.
 *
 * Asking and confirming take a share lock on the variant's row, which every stock change locks for update first:
 * an alert is either written before a comeback (and used by it) or sees the variant back (and says so, or sends).
 */
export function createStockAlertService(
  db: DB,
  {
    email,
    preferences,
    rateLimiter,
    inventory,
  }: {
    email: EmailOutbox;
    preferences: EmailPreferences;
    rateLimiter: RateLimiter;
    inventory: Pick<InventoryService, "getLevels">;
  },
) {
  /** The variant of a product on sale, locked against stock changes until the transaction ends; null if there is none. */
  async function lockVariantOnSale(trx: Writer, variantId: string) {
    const row = await trx
      .selectFrom("product_variants as v")
      .innerJoin("products as p", "p.id", "v.product_id")
      .select(["v.id", "v.option_values", "p.title", "p.slug", "p.status"])
      .where("v.id", "=", variantId)
      .forShare("v")
      .executeTakeFirst();
    return row && row.status === "active" ? row : null;
  }

  async function isBackInStock(trx: Writer, variantId: string): Promise<boolean> {
    const level = (await inventory.getLevels([variantId], trx)).get(variantId);
    return level !== undefined && hasAvailableStock(level);
  }

  /** Marks the alerts used and writes their e-mails (none to an address that unsubscribed); answers how many were written. */
  /** Whether the address, or its mailbox, asked for no more stock e-mails. */
  async function isOptedOutOfAlerts(trx: Writer, address: string): Promise<boolean> {
    return (
      (await preferences.isOptedOut(trx, mailboxOf(address), "stock-alerts")) ||
      (await preferences.isOptedOut(trx, address, "stock-alerts"))
    );
  }

  async function sendAlerts(
    trx: Writer,
    variant: AlertedVariant,
    alerts: readonly { id: string; email: string }[],
  ): Promise<number> {
    let written = 0;
    for (const alert of alerts) {
      if (await isOptedOutOfAlerts(trx, alert.email)) continue;
      const unsubscribeToken = await preferences.issueUnsubscribeToken(trx, alert.email, "stock-alerts");
      if (
        await email.enqueueBackInStock(trx, {
          alertId: alert.id,
          recipient: alert.email,
          product: { title: variant.title, path: variant.path },
          unsubscribeToken,
        })
      )
        written += 1;
    }
    return written;
  }

  /** How a variant's row names it in an e-mail, with the link to its own choice on the product page. */
  function alertedVariant(row: { id: string; option_values: string[]; title: string; slug: string }): AlertedVariant {
    const values = row.option_values;
    return {
      title: values.length > 0 ? `${row.title} (${values.join(", ")})` : row.title,
      // The default variant of a product without options is the page itself.
      path:
        values.length > 0
          ? `${productPath(row.slug)}?${VARIANT_PARAM}=${encodeURIComponent(row.id)}`
          : productPath(row.slug),
    };
  }

  return {
    /**
     * An alert for the address and variant. A signed-in shopper asking for their own confirmed address is
     * subscribed at once; anybody else gets "Confirm your alert". The same address and variant are kept once.
     * Refused: a malformed or too long address, too many alerts (per mailbox and per client address), a variant not
     * on sale, and one that is back in stock already. An address that opted out of stock e-mails, or whose mailbox
     * already has a confirmation waiting from the last day, gets no e-mail: the answer is the same ("check-email"),
     * so the page tells a stranger nothing about the address.
     */
    async subscribe({
      variantId,
      address,
      user,
      ip,
    }: {
      variantId: string;
      address: string;
      user: { email: string; isEmailVerified?: boolean } | null;
      ip: string;
    }): Promise<StockAlertOutcome> {
      const parsed = emailField.safeParse(address);
      if (!parsed.success)
        throw new AppError(
          "BAD_REQUEST",
          parsed.error.issues[0]?.message ?? "Enter a valid e-mail address, like name@example.com.",
          { details: { field: "email" } },
        );
      const recipient = parsed.data;
      const mailbox = mailboxOf(recipient);
      const [perEmail, perIp] = await rateLimiter.hitAll([
        { rule: STOCK_ALERT_LIMITS.perEmail, subject: mailbox },
        { rule: STOCK_ALERT_LIMITS.perIp, subject: ip },
      ]);
      const refused = [perEmail, perIp].find((result) => !result!.allowed);
      if (refused) throw tooManyRequests("TOO_MANY_ATTEMPTS", "Too many alerts were asked for.", refused.retryAfterMs);
      const isConfirmedAtOnce =
        user !== null && user.isEmailVerified !== false && user.email.toLowerCase() === recipient;
      return db.transaction().execute(async (trx) => {
        const variant = await lockVariantOnSale(trx, variantId);
        if (!variant) throw new AppError("NOT_FOUND", NO_SUCH_VARIANT, { details: { field: "form" } });
        if (await isBackInStock(trx, variantId))
          throw new AppError("ALREADY_IN_STOCK", BACK_IN_STOCK_ALREADY, { details: { field: "form" } });
        const existing = await trx
          .selectFrom("stock_alerts")
          .select(["id", "confirmed_at"])
          .where("variant_id", "=", variantId)
          .where("email", "=", recipient)
          .where("notified_at", "is", null)
          .forUpdate()
          .executeTakeFirst();
        if (existing?.confirmed_at) return "subscribed";
        if (isConfirmedAtOnce) {
          if (existing)
            await trx
              .updateTable("stock_alerts")
              .set({ confirmed_at: sql`now()`, confirm_token_hash: null })
              .where("id", "=", existing.id)
              .execute();
          else
            await trx
              .insertInto("stock_alerts")
              .values({
                variant_id: variantId,
                email: recipient,
                mailbox,
                confirm_token_hash: null,
                confirmed_at: new Date(),
                notified_at: null,
              })
              .onConflict(keptOnce)
              .execute();
          return "subscribed";
        }
        if (await isOptedOutOfAlerts(trx, recipient)) return "check-email";
        const waiting = await trx
          .selectFrom("stock_alerts")
          .select("id")
          .where("mailbox", "=", mailbox)
          .where("confirmed_at", "is", null)
          .where("confirmation_sent_at", ">", sql<Date>`now() - interval '1 day'`)
          .executeTakeFirst();
        if (waiting) return "check-email";
        const token = newToken();
        if (existing)
          await trx
            .updateTable("stock_alerts")
            .set({ confirm_token_hash: sha256Base64url(token), mailbox, confirmation_sent_at: sql`now()` })
            .where("id", "=", existing.id)
            .execute();
        else
          await trx
            .insertInto("stock_alerts")
            .values({
              variant_id: variantId,
              email: recipient,
              mailbox,
              confirm_token_hash: sha256Base64url(token),
              confirmation_sent_at: new Date(),
              confirmed_at: null,
              notified_at: null,
            })
            .onConflict(keptOnce)
            .execute();
        await email.enqueueStockAlertConfirmation(trx, {
          recipient,
          productTitle: alertedVariant(variant).title,
          token,
          // "Don't e-mail me about stock again" stops stock e-mails to the mailbox, whatever +tag comes next.
          unsubscribeToken: await preferences.issueUnsubscribeToken(trx, mailbox, "stock-alerts"),
        });
        return "check-email";
      });
    },

    /**
     * The "Confirm your alert" link: true when it confirmed an alert (or had already). A variant that came back
     * while the link waited in the inbox sends its e-mail now: that comeback found the alert unconfirmed.
     */
    async confirm(token: string): Promise<boolean> {
      if (!TOKEN_PATTERN.test(token)) return false;
      const tokenHash = sha256Base64url(token);
      const found = await db
        .selectFrom("stock_alerts")
        .select("variant_id")
        .where("confirm_token_hash", "=", tokenHash)
        .executeTakeFirst();
      if (!found) return false;
      return db.transaction().execute(async (trx) => {
        const variant = await lockVariantOnSale(trx, found.variant_id);
        const alert = await trx
          .updateTable("stock_alerts")
          .set({ confirmed_at: sql`coalesce(confirmed_at, now())` })
          .where("confirm_token_hash", "=", tokenHash)
          .returning(["id", "email", "notified_at"])
          .executeTakeFirst();
        if (!alert) return false;
        if (variant && alert.notified_at === null && (await isBackInStock(trx, variant.id))) {
          await trx
            .updateTable("stock_alerts")
            .set({ notified_at: sql`now()` })
            .where("id", "=", alert.id)
            .execute();
          await sendAlerts(trx, alertedVariant(variant), [alert]);
        }
        return true;
      });
    },

    /**
     * In the transaction that brings these variants back in stock (their rows locked by it): every confirmed,
     * unused alert of each is marked used and its e-mail written, in that transaction. The update takes the alerts'
     * row locks, so two instances bringing the same variant back at once send each alert once. Addresses that
     * unsubscribed from stock alerts are used up without an e-mail. Returns how many e-mails were written.
     */
    async notifyBackInStock(trx: Writer, variantIds: readonly string[]): Promise<number> {
      if (variantIds.length === 0) return 0;
      const variants = await trx
        .selectFrom("product_variants as v")
        .innerJoin("products as p", "p.id", "v.product_id")
        .select(["v.id", "v.option_values", "p.title", "p.slug"])
        .where("v.id", "in", [...new Set(variantIds)].sort())
        .where("p.status", "=", "active")
        .orderBy("v.id")
        .execute();
      let written = 0;
      for (const variant of variants) {
        const used = await trx
          .updateTable("stock_alerts")
          .set({ notified_at: sql`now()` })
          .where("variant_id", "=", variant.id)
          .where("confirmed_at", "is not", null)
          .where("notified_at", "is", null)
          .returning(["id", "email"])
          .execute();
        written += await sendAlerts(trx, alertedVariant(variant), used);
      }
      return written;
    },
  };
}

export type StockAlertService = ReturnType<typeof createStockAlertService>;
