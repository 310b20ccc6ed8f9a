// Consent to basket reminders, wherever it is asked: an account's preference or a guest's tick kept with the checkout
// address.

import type { AccountService } from "#server/accounts/account-service";
import type { DB } from "#server/db/client";
import type { EmailPreferences } from "#server/email/email-preferences";

/**
 * "E-mail me about my basket and offers", wherever it is asked: an account's preference (the address form of a
 * signed-in shopper, the basket page, registration, the account page), or a guest's tick kept with the checkout
 * address (server/addresses). A tick is fresh consent: an earlier unsubscribe from basket reminders no longer holds.
 */
export function createReminderConsent(
  db: DB,
  { accounts, preferences }: { accounts: AccountService; preferences: EmailPreferences },
) {
  return {
    async setForAccount(user: { id: string; email: string }, on: boolean): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await accounts.setBasketReminders(trx, user.id, on);
        if (on) await preferences.optIn(trx, user.email, "basket-reminders");
      });
    },

    /** After a checkout address is saved: the guest's tick (kept with the address) or the account's preference. */
    async afterAddressForm(
      user: { id: string; email: string } | null,
      { contactEmail, reminderConsent }: { contactEmail: string | null; reminderConsent: boolean },
    ): Promise<void> {
      if (user) await this.setForAccount(user, reminderConsent);
      else if (reminderConsent && contactEmail) await preferences.optIn(db, contactEmail, "basket-reminders");
    },
  };
}

export type ReminderConsent = ReturnType<typeof createReminderConsent>;
