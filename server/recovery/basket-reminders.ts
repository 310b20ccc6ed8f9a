// Basket reminders: the sweep that e-mails an abandoned basket (with consent) once per revision and step, and the link
// back that restores it.

import { sql } from "kysely";
import { ownerColumn, type BasketOwner } from "#server/basket/basket-owner";
import type { BasketService } from "#server/basket/basket-service";
import type { DB, Writer } from "#server/db/client";
import type { EmailOutbox } from "#server/email/email-outbox";
import type { EmailPreferences } from "#server/email/email-preferences";
import { every } from "#server/background/every";
import type { Logger } from "#server/logger";
import { newToken, sha256Base64url, TOKEN_PATTERN } from "#server/tokens";
import type { RecoverySettingsService } from "./recovery-settings";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** A basket is reminded about at most once per address in this long (a second reminder belongs to the first). */
export const REMINDER_QUIET_DAYS = 7;
/** How long "Return to your basket" works, and how long after a reminder a paid order counts as recovered. */
export const RESTORE_LINK_DAYS = 7;
/**
 * A basket due longer ago than its delay plus this is never reminded about: a shop that turns reminders on (or a
 * sweep stopped for days) does not e-mail every old basket at once.
 */
const LATEST_AFTER_DUE_MS = 3 * DAY_MS;
const SWEEP_INTERVAL_MS = 5 * 60 * 1000;
const BATCH = 100;

export interface BasketReminderOptions {
  db: DB;
  basket: BasketService;
  email: EmailOutbox;
  preferences: EmailPreferences;
  settings: RecoverySettingsService;
  logger: Logger;
  /** TEST_ONLY_RECOVERY_SECONDS: the delay, and the second reminder's day, in seconds. */
  testOnlySeconds?: number;
  now?: () => Date;
}

interface DueBasket {
  id: string;
  revision: number;
  session_id: string | null;
  user_id: string | null;
}

type Outcome = "sent" | "skipped" | "taken";

/**
 * "You left something in your basket": the sweep that e-mails a shopper who agreed to it (a guest's tick beside the
 * checkout address, an account's preference) about a basket with items, unpaid and unchanged since the delay
 * (RECOVERY_HOURS, or the console's setting), and once more a day later when the console turned the second reminder
 * on. Each basket revision and step is decided once, by whichever instance inserts its basket_reminders row first (the
 * row, the e-mail and its tokens commit together); a decision per address is taken under a lock on the address, so
 * no address gets two first reminders within REMINDER_QUIET_DAYS however many instances sweep.
 */
export function createBasketReminders({
  db,
  basket,
  email,
  preferences,
  settings,
  logger,
  testOnlySeconds,
  now = () => new Date(),
}: BasketReminderOptions) {
  const sweepIntervalMs = testOnlySeconds ? Math.max(250, (testOnlySeconds * 1000) / 4) : SWEEP_INTERVAL_MS;

  function delaysOf(delayHours: number) {
    return testOnlySeconds
      ? { firstMs: testOnlySeconds * 1000, secondMs: testOnlySeconds * 1000 }
      : { firstMs: delayHours * HOUR_MS, secondMs: DAY_MS };
  }

  async function dueFirst(firstMs: number): Promise<DueBasket[]> {
    const latest = new Date(now().getTime() - firstMs);
    const earliest = new Date(latest.getTime() - LATEST_AFTER_DUE_MS);
    return (
      db
        .selectFrom("baskets as b")
        .select(["b.id", "b.revision", "b.session_id", "b.user_id"])
        .where("b.updated_at", "<=", latest)
        .where("b.updated_at", ">", earliest)
        .where(({ exists, selectFrom }) =>
          exists(selectFrom("basket_items").select("basket_items.id").whereRef("basket_items.basket_id", "=", "b.id")),
        )
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom("basket_reminders as r")
                .select("r.id")
                .whereRef("r.basket_id", "=", "b.id")
                .whereRef("r.basket_revision", "=", "b.revision")
                .where("r.step", "=", 1),
            ),
          ),
        )
        // Only baskets whose owner agreed: the rest are never looked at again.
        .where(({ or, exists, selectFrom }) =>
          or([
            exists(
              selectFrom("users")
                .select("users.id")
                .whereRef("users.id", "=", "b.user_id")
                .where("users.basket_reminders", "=", true),
            ),
            exists(
              selectFrom("checkout_addresses as ca")
                .select("ca.id")
                .whereRef("ca.session_id", "=", "b.session_id")
                .where("ca.reminder_consent", "=", true)
                .where("ca.contact_email", "is not", null),
            ),
          ]),
        )
        .orderBy("b.updated_at")
        .limit(BATCH)
        .execute()
    );
  }

  async function dueSecond(secondMs: number): Promise<DueBasket[]> {
    const latest = new Date(now().getTime() - secondMs);
    const earliest = new Date(latest.getTime() - LATEST_AFTER_DUE_MS);
    return (
      db
        .selectFrom("basket_reminders as r")
        .innerJoin("baskets as b", (join) =>
          join.onRef("b.id", "=", "r.basket_id").onRef("b.revision", "=", "r.basket_revision"),
        )
        .select(["b.id", "b.revision", "b.session_id", "b.user_id"])
        .where("r.step", "=", 1)
        .where("r.outcome", "=", "sent")
        // Followed back to the shop: the shopper has seen it, a second e-mail would only nag.
        .where("r.returned_at", "is", null)
        .where("r.decided_at", "<=", latest)
        .where("r.decided_at", ">", earliest)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom("basket_reminders as second")
                .select("second.id")
                .whereRef("second.basket_id", "=", "r.basket_id")
                .whereRef("second.basket_revision", "=", "r.basket_revision")
                .where("second.step", "=", 2),
            ),
          ),
        )
        .orderBy("r.decided_at")
        .limit(BATCH)
        .execute()
    );
  }

  /** The address a reminder would go to, if its owner still agrees: the account's, or the guest's receipt e-mail. */
  async function recipientOf(writer: Writer, due: DueBasket): Promise<string | null> {
    if (due.user_id) {
      const user = await writer
        .selectFrom("users")
        .select(["email", "basket_reminders"])
        .where("id", "=", due.user_id)
        .executeTakeFirst();
      return user?.basket_reminders ? user.email : null;
    }
    if (!due.session_id) return null;
    const address = await writer
      .selectFrom("checkout_addresses")
      .select(["contact_email", "reminder_consent"])
      .where("session_id", "=", due.session_id)
      .executeTakeFirst();
    return address?.reminder_consent && address.contact_email ? address.contact_email.trim().toLowerCase() : null;
  }

  /** Whether the owner paid for an order lately: the basket was bought (or its remainder is what they chose not to). */
  async function paidLately(writer: Writer, owner: BasketOwner, since: Date): Promise<boolean> {
    const { column, value } = ownerColumn(owner);
    const order = await writer
      .selectFrom("orders")
      .select("id")
      .where(column, "=", value)
      .where("paid_at", ">=", since)
      .limit(1)
      .executeTakeFirst();
    return order !== undefined;
  }

  async function decide(due: DueBasket, step: 1 | 2, delayMs: number, promotionCode: string | null): Promise<Outcome> {
    const owner: BasketOwner = due.user_id ? { userId: due.user_id } : { sessionId: due.session_id! };
    // Read before the transaction (PGlite has one connection); the revision checked under the lock says it still holds.
    const view = await basket.getBasket(owner);
    if (view.revision !== due.revision || view.items.length === 0) return "taken";
    const at = now();
    return db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto("basket_reminders")
        .values({ basket_id: due.id, basket_revision: due.revision, step, outcome: "skipped", decided_at: at })
        .onConflict((conflict) => conflict.columns(["basket_id", "basket_revision", "step"]).doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!claimed) return "taken";
      const locked = await trx
        .selectFrom("baskets")
        .select(["revision", "updated_at"])
        .where("id", "=", due.id)
        .forUpdate()
        .executeTakeFirst();
      if (!locked || locked.revision !== due.revision) return "skipped";
      const recipient = await recipientOf(trx, due);
      if (!recipient) return "skipped";
      // One decision per address at a time, on every instance: two baskets of one address are not both reminded.
      await sql`select pg_advisory_xact_lock(hashtext(${`basket-reminder:${recipient}`}))`.execute(trx);
      if (await preferences.isOptedOut(trx, recipient, "basket-reminders")) return "skipped";
      if (step === 1) {
        const recent = await trx
          .selectFrom("basket_reminders")
          .select("id")
          .where("email", "=", recipient)
          .where("outcome", "=", "sent")
          .where("step", "=", 1)
          .where("decided_at", ">", new Date(at.getTime() - REMINDER_QUIET_DAYS * DAY_MS))
          .limit(1)
          .executeTakeFirst();
        if (recent) return "skipped";
      }
      if (await paidLately(trx, owner, new Date(locked.updated_at.getTime() - delayMs))) return "skipped";
      const restoreToken = newToken();
      const unsubscribeToken = await preferences.issueUnsubscribeToken(trx, recipient, "basket-reminders");
      await email.enqueueBasketReminder(trx, {
        reminderId: claimed.id,
        recipient,
        step,
        basket: view,
        restoreToken,
        unsubscribeToken,
        promotionCode: step === 2 ? promotionCode : null,
      });
      await trx
        .updateTable("basket_reminders")
        .set({
          outcome: "sent",
          email: recipient,
          user_id: due.user_id,
          session_id: due.session_id,
          restore_token_hash: sha256Base64url(restoreToken),
        })
        .where("id", "=", claimed.id)
        .execute();
      return "sent";
    });
  }

  async function runOnce(): Promise<{ sent: number; skipped: number }> {
    const counts = { sent: 0, skipped: 0 };
    const current = await settings.read();
    if (!current.enabled) return counts;
    const { firstMs, secondMs } = delaysOf(current.delayHours);
    const steps: [1 | 2, () => Promise<DueBasket[]>][] = [[1, () => dueFirst(firstMs)]];
    if (current.secondReminder) steps.push([2, () => dueSecond(secondMs)]);
    for (const [step, due] of steps) {
      for (;;) {
        const baskets = await due();
        let decided = 0;
        for (const basketDue of baskets) {
          const outcome = await decide(basketDue, step, firstMs, current.secondPromotionCode);
          if (outcome !== "taken") {
            counts[outcome] += 1;
            decided += 1;
          }
        }
        // A full batch of baskets another instance took (or that changed) is not worth asking for again now.
        if (baskets.length < BATCH || decided === 0) break;
      }
    }
    return counts;
  }

  const sweep = every(sweepIntervalMs, runOnce, { logger, name: "recovery: basket reminders" });

  return {
    runOnce,

    /**
     * "Return to your basket": the reminded basket's lines join the owner's basket (a browser's own, started if need
     * be), by the rule of sign-in. It never signs anyone in. "expired" after RESTORE_LINK_DAYS or for a link that is
     * not ours; "gone" when the basket no longer exists (bought and emptied, or moved into an account at sign-in).
     */
    async restore(token: string, owner: () => Promise<BasketOwner>): Promise<"restored" | "expired" | "gone"> {
      if (!TOKEN_PATTERN.test(token)) return "expired";
      const reminder = await db
        .selectFrom("basket_reminders")
        .select(["id", "basket_id", "decided_at"])
        .where("restore_token_hash", "=", sha256Base64url(token))
        .executeTakeFirst();
      if (!reminder || reminder.decided_at.getTime() < now().getTime() - RESTORE_LINK_DAYS * DAY_MS) return "expired";
      if (!reminder.basket_id || !(await basket.restoreInto(reminder.basket_id, await owner()))) return "gone";
      await db
        .updateTable("basket_reminders")
        .set({ returned_at: now() })
        .where("id", "=", reminder.id)
        .where("returned_at", "is", null)
        .execute();
      return "restored";
    },

    start: sweep.start,
    stop: sweep.stop,
  };
}

export type BasketReminders = ReturnType<typeof createBasketReminders>;
