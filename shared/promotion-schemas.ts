// The promotion code forms: the payment page's code, and the console's promotion form.

import { z } from "zod";
import { MAX_PRICE_CENTS, parseDollars } from "./admin-schemas";
import { normalizeCode, PROMOTION_CODE_PATTERN, PROMOTION_REFUSALS } from "./promotions";

/** The payment page's "Promotion code" field. */
export const applyPromotionSchema = z.strictObject({
  code: z
    .string()
    .max(100, PROMOTION_REFUSALS.invalid)
    .transform((typed) => normalizeCode(typed))
    .refine((code) => code !== "", "Enter a promotion code.")
    .refine((code) => code === "" || PROMOTION_CODE_PATTERN.test(code), PROMOTION_REFUSALS.invalid),
});

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A day typed in the form ("2026-12-01"), or empty for none; Starts begin at 00:00 UTC, Ends end at 24:00 UTC. */
function dayField(label: string) {
  return z
    .string()
    .trim()
    .max(10, `Enter ${label} as a date, like 2026-12-01, or leave it empty.`)
    .refine(
      (typed) => typed === "" || (DATE_PATTERN.test(typed) && !Number.isNaN(Date.parse(`${typed}T00:00:00Z`))),
      `Enter ${label} as a date, like 2026-12-01, or leave it empty.`,
    )
    .transform((typed) => (typed === "" ? null : typed));
}

function centsField(empty: "zero" | "required", requiredMessage: string) {
  return z
    .string()
    .max(20, "Enter an amount in dollars and cents, like 20.00.")
    .transform((typed, context) => {
      if (typed.trim() === "") {
        if (empty === "zero") return 0;
        context.addIssue({ code: "custom", message: requiredMessage });
        return z.NEVER;
      }
      const cents = parseDollars(typed);
      if (cents === null || cents > MAX_PRICE_CENTS) {
        context.addIssue({ code: "custom", message: "Enter an amount in dollars and cents, like 20.00." });
        return z.NEVER;
      }
      return cents;
    });
}

/** "New promotion" and a promotion's page in the console. Unknown fields are refused. */
export const promotionFormSchema = z
  .strictObject({
    code: z
      .string()
      .max(100, "A code is letters, digits and hyphens, 3 to 32 long.")
      .transform(normalizeCode)
      .refine((code) => PROMOTION_CODE_PATTERN.test(code), "A code is letters, digits and hyphens, 3 to 32 long."),
    kind: z.enum(["percentage", "amount", "free-delivery"], {
      error: "Choose Percentage off, Amount off or Free delivery.",
    }),
    value: z.string().max(20, "Enter a value.").default(""),
    minimumSubtotal: centsField("zero", ""),
    startsOn: dayField("Starts"),
    endsOn: dayField("Ends"),
    usageLimit: z
      .string()
      .trim()
      .max(7, "Total uses is a whole number from 1 to 1,000,000, or empty for no limit.")
      .refine(
        (typed) => typed === "" || (/^\d+$/.test(typed) && Number(typed) >= 1 && Number(typed) <= 1_000_000),
        "Total uses is a whole number from 1 to 1,000,000, or empty for no limit.",
      )
      .transform((typed) => (typed === "" ? null : Number(typed))),
    oncePerCustomer: z
      .literal("on")
      .optional()
      .transform((checked) => checked === "on"),
    status: z.enum(["active", "paused"], { error: "Choose Active or Paused." }),
  })
  .transform((form, context) => {
    let value = 0;
    if (form.kind === "percentage") {
      const typed = form.value.trim().replace(/%$/, "");
      if (!/^\d{1,3}$/.test(typed) || Number(typed) < 1 || Number(typed) > 100) {
        context.addIssue({ code: "custom", path: ["value"], message: "A percentage is a whole number from 1 to 100." });
        return z.NEVER;
      }
      value = Number(typed);
    } else if (form.kind === "amount") {
      const cents = parseDollars(form.value);
      if (cents === null || cents < 1 || cents > MAX_PRICE_CENTS) {
        context.addIssue({
          code: "custom",
          path: ["value"],
          message: "Enter an amount in dollars and cents, like 5.00.",
        });
        return z.NEVER;
      }
      value = cents;
    }
    if (form.startsOn && form.endsOn && form.endsOn < form.startsOn) {
      context.addIssue({ code: "custom", path: ["endsOn"], message: "Ends must be on or after Starts." });
      return z.NEVER;
    }
    return {
      code: form.code,
      kind: form.kind,
      value,
      minimumSubtotalCents: form.minimumSubtotal,
      startsAt: form.startsOn ? new Date(`${form.startsOn}T00:00:00Z`) : null,
      // Ends is a whole day: the code works until the day after it begins.
      endsAt: form.endsOn ? new Date(Date.parse(`${form.endsOn}T00:00:00Z`) + 86_400_000) : null,
      usageLimit: form.usageLimit,
      oncePerCustomer: form.oncePerCustomer,
      status: form.status,
    };
  });

export type PromotionForm = z.output<typeof promotionFormSchema>;
