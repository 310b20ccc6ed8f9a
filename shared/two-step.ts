// The two-step verification forms: the code at sign-in and the console's setup and reset.

import { z } from "zod";
import { checkboxField } from "./recovery-schemas";
import { returnToSchema } from "./return-to-schema";

/** The code an authenticator app shows: six digits, spaces (as some apps group them) ignored. */
export const twoStepCodeField = z
  .string({ error: "Enter the 6-digit code from your authenticator app." })
  .max(20, "Enter the 6-digit code from your authenticator app.")
  .transform((code) => code.replace(/\s/g, ""))
  .pipe(z.string().regex(/^\d{6}$/, "Enter the 6-digit code from your authenticator app."));

const challengeField = z.string().max(100);

/** The sign-in page's second step: the code, or one of the recovery codes. */
export const twoStepSignInSchema = z.discriminatedUnion("intent", [
  z.strictObject({
    intent: z.literal("two-step-code"),
    challenge: challengeField,
    code: twoStepCodeField,
    returnTo: returnToSchema,
    basketReminders: checkboxField,
  }),
  z.strictObject({
    intent: z.literal("recovery-code"),
    challenge: challengeField,
    recoveryCode: z
      .string({ error: "Enter one of your recovery codes." })
      .trim()
      .min(1, "Enter one of your recovery codes.")
      .max(40, "That is not one of your recovery codes."),
    returnTo: returnToSchema,
    basketReminders: checkboxField,
  }),
]);

export const TWO_STEP_INTENTS: readonly string[] = ["two-step-code", "recovery-code"];

/** The operators page's two-step forms: reset one operator's setup, or the staff rule. */
export const twoStepConsoleSchema = z.discriminatedUnion("intent", [
  z.strictObject({
    intent: z.literal("reset-two-step"),
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .pipe(z.email({ error: "That is not an operator's address." })),
  }),
  z.strictObject({ intent: z.literal("two-step-policy"), required: z.literal("on").optional() }),
]);
