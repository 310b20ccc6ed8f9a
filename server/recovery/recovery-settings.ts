// The basket reminders' settings: the console's saved row, else the defaults from the configuration.

import type { DB, Writer } from "#server/db/client";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { AppError } from "#shared/errors";
import type { RecoverySettingsForm } from "#shared/recovery-schemas";

/** What the basket reminders do now: the console's saved row, else the defaults (RECOVERY_HOURS). */
export interface RecoverySettings {
  enabled: boolean;
  delayHours: number;
  secondReminder: boolean;
  /** A promotion code the second reminder offers; null for none. */
  secondPromotionCode: string | null;
  /** False until an operator saves them: RECOVERY_HOURS applies meanwhile. */
  isSaved: boolean;
}

/**
 * The console's basket reminder settings: one row, the only writer of recovery_settings. Read by the sweep on every
 * run, so a change reaches every instance by its next run.
 */
export function createRecoverySettings(db: DB, { defaultDelayHours }: { defaultDelayHours: number }) {
  const defaults: RecoverySettings = {
    enabled: true,
    delayHours: defaultDelayHours,
    secondReminder: false,
    secondPromotionCode: null,
    isSaved: false,
  };

  async function read(executor: Writer = db): Promise<RecoverySettings> {
    const row = await executor.selectFrom("recovery_settings").selectAll().executeTakeFirst();
    if (!row) return defaults;
    return {
      enabled: row.enabled,
      delayHours: row.delay_hours,
      secondReminder: row.second_reminder,
      secondPromotionCode: row.second_promotion_code,
      isSaved: true,
    };
  }

  return {
    read: () => read(),

    /** Saves the console's form; a promotion code must name an existing promotion. Audited. */
    async save(form: RecoverySettingsForm, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const code = form.secondPromotionCode;
        if (code) {
          const promotion = await trx.selectFrom("promotions").select("id").where("code", "=", code).executeTakeFirst();
          if (!promotion)
            throw new AppError("INVALID_INPUT", "There is no promotion with that code.", {
              details: { errors: { secondPromotionCode: "There is no promotion with that code." } },
            });
        }
        const before = await read(trx);
        const values = {
          enabled: form.enabled,
          delay_hours: form.delayHours,
          second_reminder: form.secondReminder,
          second_promotion_code: code,
        };
        await trx
          .insertInto("recovery_settings")
          .values(values)
          .onConflict((conflict) => conflict.column("singleton").doUpdateSet({ ...values, updated_at: new Date() }))
          .execute();
        await recordAudit(trx, actor, {
          action: "recovery.settings",
          subject: "basket reminders",
          before: {
            enabled: before.enabled,
            delayHours: before.delayHours,
            secondReminder: before.secondReminder,
            secondPromotionCode: before.secondPromotionCode,
          },
          after: {
            enabled: form.enabled,
            delayHours: form.delayHours,
            secondReminder: form.secondReminder,
            secondPromotionCode: code,
          },
        });
      });
    },
  };
}

export type RecoverySettingsService = ReturnType<typeof createRecoverySettings>;
