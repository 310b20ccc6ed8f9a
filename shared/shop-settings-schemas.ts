// The console's settings form, strict: names, addresses, return terms, a known time zone, legal texts.

import { z } from "zod";
import { parseDollars } from "./admin-schemas";
import {
  MAX_ADDRESS_LENGTH,
  MAX_FROM_NAME_LENGTH,
  MAX_LEGAL_TEXT_LENGTH,
  MAX_RETURN_FEE_CENTS,
  MAX_RETURN_WINDOW_DAYS,
  MAX_SHOP_NAME_LENGTH,
} from "./shop-settings";

/** Whether the runtime knows this time zone (an IANA name such as Europe/Paris, or UTC). */
export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/** An optional line: empty means "not set" (null), so the default applies again. */
const optionalLine = (max: number, tooLong: string) =>
  z
    .string()
    .trim()
    .max(max, tooLong)
    .refine((value) => !/[\r\n]/.test(value), "Keep it on one line.")
    .transform((value) => value || null);

const optionalText = (max: number, tooLong: string) =>
  z
    .string()
    .max(max, tooLong)
    .transform((value) => value.replace(/\r\n?/g, "\n").trim() || null);

/**
 * The console's settings form (/admin/settings): the logo travels beside it as a file, and "removeLogo" takes the
 * logo away. Every field is sent by the form; an empty one goes back to its default. Unknown fields are refused.
 */
export const shopSettingsFormSchema = z.strictObject({
  shopName: optionalLine(MAX_SHOP_NAME_LENGTH, `A shop name is at most ${MAX_SHOP_NAME_LENGTH} characters.`),
  supportEmail: z
    .string()
    .trim()
    .max(254, "An e-mail address is at most 254 characters.")
    .refine(
      (value) => value === "" || z.email().safeParse(value).success,
      "Enter an e-mail address, like help@shop.example.",
    )
    .transform((value) => value.toLowerCase() || null),
  emailFromName: optionalLine(
    MAX_FROM_NAME_LENGTH,
    `A sender name is at most ${MAX_FROM_NAME_LENGTH} characters.`,
  ).refine((value) => value === null || !/[<>"@]/.test(value), 'A sender name is a name only, without <, >, " or @.'),
  postalAddress: optionalText(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`),
  returnAddress: optionalText(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`),
  returnWindowDays: z
    .string()
    .trim()
    .transform((typed, context) => {
      const days = Number(typed);
      if (!/^\d{1,3}$/.test(typed) || days > MAX_RETURN_WINDOW_DAYS) {
        context.addIssue({ code: "custom", message: `Enter a number of days from 0 to ${MAX_RETURN_WINDOW_DAYS}.` });
        return z.NEVER;
      }
      return days;
    }),
  returnFee: z
    .string()
    .trim()
    .transform((typed, context) => {
      const cents = parseDollars(typed);
      if (cents === null || cents > MAX_RETURN_FEE_CENTS) {
        context.addIssue({
          code: "custom",
          message: "Enter a fee in dollars and cents from 0.00 to 1,000.00, like 4.99.",
        });
        return z.NEVER;
      }
      return cents;
    }),
  timeZone: z
    .string()
    .trim()
    .max(100, "Enter a time zone such as America/New_York or Europe/Paris.")
    .refine(isKnownTimeZone, "Unknown time zone. Enter one such as America/New_York or Europe/Paris."),
  conditionsText: optionalText(
    MAX_LEGAL_TEXT_LENGTH,
    `The text is at most ${MAX_LEGAL_TEXT_LENGTH.toLocaleString("en-US")} characters.`,
  ),
  privacyText: optionalText(
    MAX_LEGAL_TEXT_LENGTH,
    `The text is at most ${MAX_LEGAL_TEXT_LENGTH.toLocaleString("en-US")} characters.`,
  ),
  returnsText: optionalText(
    MAX_LEGAL_TEXT_LENGTH,
    `The text is at most ${MAX_LEGAL_TEXT_LENGTH.toLocaleString("en-US")} characters.`,
  ),
  removeLogo: z.literal("on").optional(),
});

export type ShopSettingsForm = z.infer<typeof shopSettingsFormSchema>;
