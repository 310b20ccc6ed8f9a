// The console's store credit forms: finding a customer, adding or removing credit, the outstanding balances' download.

import "./zod-policy";
import { z } from "zod";
import { isStorableText } from "./storable-text";
import { parseDollars } from "./admin-schemas";

/** The most an operator adds or removes at once: $10,000.00. */
export const STORE_CREDIT_MAX_CENTS = 1_000_000;

/** The console's store credit page: the customer looked up by e-mail (whole, any case). */
export const storeCreditLookupSchema = z.object({
  email: z.string().trim().toLowerCase().max(254).refine(isStorableText).catch(""),
});

const amount = z
  .string()
  .max(20, "Enter an amount like 12.99.")
  .transform((typed, context) => {
    const cents = parseDollars(typed);
    if (cents === null || cents < 1 || cents > STORE_CREDIT_MAX_CENTS) {
      context.addIssue({ code: "custom", message: "Enter an amount in dollars and cents, from $0.01 to $10,000.00." });
      return z.NEVER;
    }
    return cents;
  });

const note = z
  .string()
  .trim()
  .min(1, "Say why, in a note.")
  .max(200, "A note is at most 200 characters.")
  .refine(isStorableText, "Enter the note without control characters.");

/** "Add credit" and "Remove credit": an amount and a note, for the customer the page shows. */
export const storeCreditActionSchema = z.discriminatedUnion("intent", [
  z.strictObject({ intent: z.literal("add-credit"), user: z.uuid("Look the customer up again."), amount, note }),
  z.strictObject({ intent: z.literal("remove-credit"), user: z.uuid("Look the customer up again."), amount, note }),
]);

/** The outstanding balances' CSV: balances as they stood at the end of a day (the shop's time zone). */
export const outstandingBalancesSchema = z.object({
  on: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine(
      (day) =>
        !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day),
    )
    .optional()
    .catch(undefined),
});

/** /payment's "Remove" beside a balance in the totals: the balance's account. */
export const removeBalanceSchema = z.strictObject({ account: z.uuid("Reload the page and try again.") });
