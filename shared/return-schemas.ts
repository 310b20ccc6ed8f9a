// The returns' forms: the shopper's request, "Find an order", and the operator's decisions on a return.

import "./zod-policy";
import { z } from "zod";
import { isStorableText } from "./storable-text";
import { RETURN_REASON_CODES, type ReturnReason, type ReturnResolution } from "./returns";

/** The most lines a return form carries (an order holds at most 100 lines). */
export const RETURN_FORM_LINES = 100;

const FORM_NOT_UNDERSTOOD = "Please check the form and try again.";

/** The key each return form carries, made when the form is drawn: sent twice, it opens one return. */
const requestKey = z.string().regex(/^[A-Za-z0-9-]{16,64}$/, FORM_NOT_UNDERSTOOD);

/** A line's quantity: empty or a whole number of units, 0 to 1000. */
const quantity = z
  .string()
  .max(6, "Enter a whole number of items.")
  .optional()
  .transform((typed, context) => {
    const text = (typed ?? "").trim();
    if (text === "") return 0;
    if (!/^\d{1,4}$/.test(text)) {
      context.addIssue({ code: "custom", message: "Enter a whole number of items." });
      return z.NEVER;
    }
    return Number(text);
  });

const lineFields = Object.fromEntries(
  Array.from({ length: RETURN_FORM_LINES }, (_, index) => [
    [`quantity-${index}`, quantity],
    [`reason-${index}`, z.enum(RETURN_REASON_CODES, { error: "Choose a reason." }).optional()],
    [`resolution-${index}`, z.enum(["refund", "replace"], { error: "Choose Refund or a replacement." }).optional()],
    [`replacement-${index}`, z.string().max(64).refine(isStorableText, FORM_NOT_UNDERSTOOD).optional()],
  ]).flat(),
);

/**
 * The order page's "Return or replace items": per line (`quantity-N`, `reason-N`, `resolution-N` refund or replace,
 * `replacement-N` the variant), `intent` quote (show "Refund: $x" without JavaScript) or request, the form's key and,
 * for a guest, the signed link's `access`.
 */
export const returnRequestSchema = z
  .strictObject({
    intent: z.enum(["quote", "request"], { error: FORM_NOT_UNDERSTOOD }),
    key: requestKey,
    access: z.string().max(64).optional(),
    ...lineFields,
  })
  .superRefine((parsed, context) => {
    const fields = parsed as Record<string, unknown>;
    for (let index = 0; index < RETURN_FORM_LINES; index++) {
      if (((fields[`quantity-${index}`] as number | undefined) ?? 0) === 0) continue;
      if (!fields[`reason-${index}`])
        context.addIssue({ code: "custom", path: [`reason-${index}`], message: "Choose a reason." });
      if (fields[`resolution-${index}`] === "replace" && !fields[`replacement-${index}`])
        context.addIssue({ code: "custom", path: [`replacement-${index}`], message: "Choose the option you want." });
    }
  })
  .transform((parsed) => {
    const fields = parsed as Record<string, unknown>;
    const lines = Array.from({ length: RETURN_FORM_LINES }, (_, index) => ({
      index,
      quantity: (fields[`quantity-${index}`] as number | undefined) ?? 0,
      reason: (fields[`reason-${index}`] as ReturnReason | undefined) ?? "other",
      resolution: (fields[`resolution-${index}`] as ReturnResolution | undefined) ?? "refund",
      replacementVariantId: (fields[`replacement-${index}`] as string | undefined) || null,
    })).filter((line) => line.quantity > 0);
    return {
      intent: fields.intent as "quote" | "request",
      key: fields.key as string,
      access: (fields.access as string | undefined) ?? null,
      lines,
    };
  });

/** "Find an order" on /returns: the order number and the e-mail the receipt went to. */
export const findOrderSchema = z.strictObject({
  orderNumber: z
    .string()
    .trim()
    .min(1, "Enter your order number.")
    .max(40, "Enter an order number like SF-2611-8K3Q.")
    .transform((number) => number.toUpperCase())
    .refine((number) => /^SF-\d{4}-[2-9A-HJKMNP-Z]{4}$/.test(number), "Enter an order number like SF-2611-8K3Q."),
  email: z
    .string()
    .trim()
    .min(1, "Enter the e-mail address your receipt went to.")
    .max(254, "Enter an e-mail address like name@example.com.")
    .refine((email) => /^[^\s@]+@[^\s@]+$/.test(email), "Enter an e-mail address like name@example.com."),
});

/**
 * The status the operator saw when the page was drawn: a step on a return that changed since (another operator, another
 * tab) is refused with a sentence rather than done on what they did not see.
 */
const seen = z.enum(["requested", "approved", "declined", "received", "refunded", "cancelled"], {
  error: "The form was not understood. Reload the page and try again.",
});

/** The console's return page: its decisions and steps, told apart by `intent`. */
export const adminReturnActionSchema = z.discriminatedUnion("intent", [
  z.strictObject({ intent: z.literal("approve"), seen }),
  z.strictObject({
    intent: z.literal("decline"),
    seen,
    message: z
      .string()
      .trim()
      .min(1, "Write a message to the shopper saying why.")
      .max(2000, "A message is at most 2000 characters.")
      .refine(isStorableText, "Write the message without control characters."),
  }),
  z.strictObject({ intent: z.literal("cancel"), seen }),
  z.strictObject({
    intent: z.literal("receive"),
    seen,
    line: z
      .string()
      .regex(/^\d{1,3}$/, "The form was not understood. Reload the page and try again.")
      .transform(Number),
    received: z
      .string()
      .trim()
      .regex(/^\d{1,4}$/, "Enter how many arrived, as a whole number.")
      .transform(Number),
    damaged: z
      .string()
      .trim()
      .regex(/^\d{1,4}$/, "Enter how many are damaged, as a whole number (0 for none).")
      .transform(Number),
  }),
  z.strictObject({ intent: z.literal("refund"), seen }),
  z.strictObject({ intent: z.literal("replace"), seen }),
]);
