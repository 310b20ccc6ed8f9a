// The console's order forms and list query: the list's filters, ship, refund (by lines or an amount), cancel and
// refund, and a held payment's refund.

import "./zod-policy";
import { isStorableText } from "./storable-text";
import { z } from "zod";
import { parseDollars } from "./admin-schemas";
import { ORDER_LIST_FILTER_KEYS } from "./orders";

/** The most lines a refund form carries (a basket holds at most 100 items). */
export const REFUND_FORM_LINES = 100;

const calendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine(
    (day) =>
      !Number.isNaN(Date.parse(`${day}T00:00:00Z`)) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day),
  )
  .optional()
  .catch(undefined);

/**
 * The console's orders list: a status filter or "Needs attention" (show=attention), a mode (live or test orders
 * only, as the dashboard counts them), a search (order number or e-mail), paid between two days, the keyset cursor.
 */
export const adminOrderListSchema = z.object({
  status: z.enum(ORDER_LIST_FILTER_KEYS).optional().catch(undefined),
  show: z.literal("attention").optional().catch(undefined),
  mode: z.enum(["live", "test"]).optional().catch(undefined),
  // Text PostgreSQL cannot take (a NUL, a lone surrogate) is no search and no cursor.
  q: z.string().trim().max(254).refine(isStorableText).catch(""),
  after: z.string().max(200).refine(isStorableText).optional().catch(undefined),
  /** Paid on or after, on or before (YYYY-MM-DD, a date input's value); anything else is no bound. */
  from: calendarDay,
  to: calendarDay,
});

/** The key each refund form carries, made when the form is drawn: a second submission of it refunds nothing more. */
const requestKey = z
  .string()
  .regex(/^[A-Za-z0-9-]{16,64}$/, "The form was not understood. Reload the page and try again.");

/**
 * Sent by the confirmation ("Refund $134.87 to Visa ending in 4242?"): without it a refund form only asks. A page, not
 * a script's dialog, so that it asks without JavaScript too.
 */
const confirmed = z.literal("yes").optional();

/** A checkbox sends "on" when ticked, nothing otherwise. */
const checkbox = z
  .literal("on", { error: "Tick the box or leave it." })
  .optional()
  .transform((ticked) => ticked === "on");

/** A line's "Quantity to refund": empty or a whole number of units, 0 to 1000. */
const lineQuantity = z
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

/**
 * The order page's refund: per line (`quantity-N`, "Put the items back in stock" `restock-N`, N the line's index),
 * "Include shipping", an amount (empty: what the lines come to, or without lines everything left; editable down,
 * never up) and a reason.
 */
const refundFields = {
  intent: z.literal("refund"),
  key: requestKey,
  confirmed,
  amount: z
    .string()
    .max(20, "Enter an amount like 12.99.")
    .optional()
    .transform((typed, context) => {
      // Empty: what the lines come to, or everything that is left.
      if ((typed ?? "").trim() === "") return null;
      const cents = parseDollars(typed ?? "");
      if (cents === null || cents < 1) {
        context.addIssue({
          code: "custom",
          message: "Enter an amount in dollars and cents, like 12.99, at least $0.01.",
        });
        return z.NEVER;
      }
      return cents;
    }),
  includeShipping: checkbox,
  /** "Refund to store credit" is the form's second button: the money goes to the shopper's store credit. */
  destination: z
    .enum(["card", "store_credit"], { error: "The form was not understood. Reload the page and try again." })
    .optional()
    .transform((destination) => destination ?? "card"),
  reason: z
    .string()
    .trim()
    .max(200, "A reason is at most 200 characters.")
    .refine(isStorableText, "Enter the reason without control characters.")
    .optional()
    .transform((reason) => reason || null),
};
const lineFields: Record<string, typeof lineQuantity | typeof checkbox> = Object.fromEntries(
  Array.from({ length: REFUND_FORM_LINES }, (_, index) => [
    [`quantity-${index}`, lineQuantity],
    [`restock-${index}`, checkbox],
  ]).flat(),
);
const refundSchema = z.strictObject({ ...refundFields, ...lineFields }).transform((parsed) => {
  const form = parsed as unknown as z.output<z.ZodObject<typeof refundFields>>;
  const fields = parsed as unknown as Record<string, unknown>;
  const lines = Array.from({ length: REFUND_FORM_LINES }, (_, index) => ({
    index,
    quantity: (fields[`quantity-${index}`] as number | undefined) ?? 0,
    restock: fields[`restock-${index}`] === true,
  })).filter((line) => line.quantity > 0);
  return {
    intent: form.intent,
    key: form.key,
    confirmed: form.confirmed,
    amount: form.amount,
    includeShipping: form.includeShipping,
    destination: form.destination,
    reason: form.reason,
    lines,
  };
});

/** The order page's three forms, told apart by `intent`. Unknown fields are refused. */
export const adminOrderActionSchema = z.discriminatedUnion("intent", [
  z.strictObject({
    intent: z.literal("ship"),
    carrier: z.string().trim().min(1, "Enter the carrier.").max(100, "A carrier is at most 100 characters."),
    trackingNumber: z
      .string()
      .trim()
      .min(1, "Enter the tracking number.")
      .max(100, "A tracking number is at most 100 characters."),
  }),
  refundSchema,
  z.strictObject({ intent: z.literal("cancel-and-refund"), key: requestKey, confirmed, restock: checkbox }),
]);

/** Said when a held payment's Refund comes after it was refunded (by another operator, another tab). */
export const NO_LONGER_HELD = "This payment is no longer held for review.";

/** "Needs attention"'s Refund of a payment held for review (no order): asked first, then done with confirmed=yes. */
export const heldPaymentRefundSchema = z.strictObject({
  intent: z.literal("refund-held-payment"),
  payment: z.string().regex(/^pi_[A-Za-z0-9_]{1,100}$/, "The form was not understood. Reload the page and try again."),
  confirmed,
});
