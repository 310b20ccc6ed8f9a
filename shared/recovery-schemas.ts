// The basket reminders' forms: the console's settings and a shopper's consent.

import { z } from "zod";
import { normalizeCode, PROMOTION_CODE_PATTERN } from "./promotions";

/** A ticked checkbox posts "on", an unticked one nothing; JSON says true or false. */
export const checkboxField = z
  .union([z.literal("on"), z.boolean()], { error: "A checkbox is ticked or not." })
  .optional()
  .transform((checked) => checked === "on" || checked === true);

/** The console's basket reminder settings (/admin/recovery). Unknown fields are refused. */
export const recoverySettingsSchema = z.strictObject({
  enabled: checkboxField,
  delayHours: z
    .string()
    .trim()
    .max(3, "Hours is a whole number from 1 to 168.")
    .refine(
      (typed) => /^\d+$/.test(typed) && Number(typed) >= 1 && Number(typed) <= 168,
      "Hours is a whole number from 1 to 168.",
    )
    .transform(Number),
  secondReminder: checkboxField,
  secondPromotionCode: z
    .string()
    .max(100, "A code is letters, digits and hyphens, 3 to 32 long.")
    .default("")
    .transform(normalizeCode)
    .refine(
      (code) => code === "" || PROMOTION_CODE_PATTERN.test(code),
      "A code is letters, digits and hyphens, 3 to 32 long.",
    )
    .transform((code) => (code === "" ? null : code)),
});

export type RecoverySettingsForm = z.infer<typeof recoverySettingsSchema>;

/** A signed-in shopper's own switch for basket reminders (the basket and account pages). */
export const basketRemindersFormSchema = z.strictObject({
  intent: z.literal("basket-reminders"),
  basketReminders: checkboxField,
});
