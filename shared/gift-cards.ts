// Gift cards as pages and forms see them: their kinds, amounts and limits, a basket line's recipient, and each
// refusal's sentence.

import "./zod-policy";
import { z } from "zod";
import { parseDollars } from "./admin-schemas";
import { hasControlCharacter } from "./local-path";
import { isStorableText } from "./storable-text";
import { returnToSchema } from "./return-to-schema";

/** A gift card product: its variants' prices ("denominations": $25, $50, $100) or the shopper's amount. */
export type GiftCardKind = "denominations" | "any_amount";

export const GIFT_CARD_KIND_LABELS: Record<GiftCardKind, string> = {
  denominations: "Denominations (the variants' prices)",
  any_amount: "Any amount ($5 to $500)",
};

/** "Any amount": from $5 to $500. */
export const GIFT_CARD_MIN_CENTS = 500;
export const GIFT_CARD_MAX_CENTS = 50_000;
/** The most a card issued by hand may hold. */
export const ISSUED_GIFT_CARD_MAX_CENTS = 100_000;
export const GIFT_CARD_MESSAGE_LIMIT = 250;

/** What a gift card's page asked, kept with its basket line and then its order line. */
export interface GiftCardLine {
  recipientEmail: string;
  senderName: string;
  message: string;
  /** "Send on" as YYYY-MM-DD in the shop's time zone; null: when the order is paid. */
  sendOn: string | null;
  /** "Any amount": the amount chosen; null: the variant's price. */
  amountCents: number | null;
}

/** The refusals a shopper reads at /payment and /gift-cards/balance, exactly as written. */
export const GIFT_CARD_REFUSALS = {
  invalid: "This gift card number is not valid.",
  empty: "This gift card has no balance left.",
  expired: "This gift card has expired.",
  disabled: "This gift card has been disabled.",
} as const;

export type GiftCardRefusal = keyof typeof GIFT_CARD_REFUSALS;

/** "Gift card ending 7XQ2": how totals, orders and the console name a card. */
export function giftCardName(lastFour: string): string {
  return `Gift card ending ${lastFour}`;
}

const text = (label: string, max: number) =>
  z
    .string()
    .max(max, `${label} is at most ${max} characters.`)
    .refine((value) => !hasControlCharacter(value.replace(/\r?\n/g, " ")), `${label} has a character it cannot hold.`)
    .refine(isStorableText, `${label} has a character it cannot hold.`);

const email = z
  .string()
  .trim()
  .min(1, "Enter the recipient's e-mail address.")
  .max(254, "That e-mail address is too long.")
  .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }));

/** "YYYY-MM-DD" or blank. Whether it is today or later is judged on the server, by the shop's calendar. */
const sendOn = z
  .string()
  .trim()
  .max(10, "Enter a date like 2026-12-24.")
  .regex(/^(\d{4}-\d{2}-\d{2})?$/, "Enter a date like 2026-12-24.")
  .refine((typed) => typed === "" || !Number.isNaN(Date.parse(`${typed}T00:00:00Z`)), "Enter a date like 2026-12-24.")
  .transform((typed) => (typed === "" ? null : typed));

/** An amount typed in dollars, between `min` and `max` cents. */
export function dollarsBetween(min: number, max: number, message: string) {
  return z
    .string()
    .max(20, message)
    .transform((typed, context) => {
      const cents = parseDollars(typed);
      if (cents === null || cents < min || cents > max) {
        context.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return cents;
    });
}

/** The gift card page's form: which card, for whom, from whom, and when. */
export const giftCardLineSchema = z.strictObject({
  productId: z.string().trim().min(1).max(64),
  variantId: z.string().trim().min(1).max(64).optional(),
  amount: dollarsBetween(GIFT_CARD_MIN_CENTS, GIFT_CARD_MAX_CENTS, "Enter an amount from $5 to $500.").optional(),
  recipientEmail: email,
  senderName: text("Your name", 100).pipe(z.string().trim().min(1, "Enter your name.")),
  message: text("A message", GIFT_CARD_MESSAGE_LIMIT).transform((value) => value.replace(/\r\n/g, "\n").trim()),
  sendOn,
  returnTo: returnToSchema,
});

/** A gift card number as typed (at /payment, /gift-cards/balance): bounded; whether it is one is the server's call. */
export const giftCardNumberSchema = z.strictObject({
  code: z.string().max(64, GIFT_CARD_REFUSALS.invalid),
});

const consoleNote = z
  .string()
  .trim()
  .max(200, "A note is at most 200 characters.")
  .refine(isStorableText, "A note has a character it cannot hold.");

/** The console's three gift card forms: "Issue gift card", "Disable", "Adjust" (a signed amount, with a note). */
export const giftCardConsoleSchema = z.discriminatedUnion("intent", [
  z.strictObject({
    intent: z.literal("issue"),
    email: z
      .string()
      .trim()
      .min(1, "Enter the e-mail address to send it to.")
      .max(254, "That e-mail address is too long.")
      .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." })),
    amount: dollarsBetween(100, ISSUED_GIFT_CARD_MAX_CENTS, "Enter an amount from $1 to $1,000."),
    note: consoleNote,
    expiresOn: sendOn,
  }),
  z.strictObject({ intent: z.literal("disable"), card: z.uuid({ error: "Choose a gift card." }) }),
  z.strictObject({
    intent: z.literal("adjust"),
    card: z.uuid({ error: "Choose a gift card." }),
    amount: z
      .string()
      .trim()
      .max(20, "Enter an amount like 5.00 to add or -5.00 to take away.")
      .transform((typed, context) => {
        const isTaking = typed.startsWith("-");
        const cents = parseDollars(isTaking ? typed.slice(1) : typed.replace(/^\+/, ""));
        if (cents === null || cents === 0 || cents > ISSUED_GIFT_CARD_MAX_CENTS) {
          context.addIssue({ code: "custom", message: "Enter an amount like 5.00 to add or -5.00 to take away." });
          return z.NEVER;
        }
        return isTaking ? -cents : cents;
      }),
    note: consoleNote.pipe(z.string().min(1, "Say why: the note is kept with the change.")),
  }),
]);

/** /gift-cards/balance's form. */
export const giftCardBalanceSchema = giftCardNumberSchema;
