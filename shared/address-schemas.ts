/**
 * The delivery address's one strict, bounded schema, which the payment page's form action and POST /checkout/address
 * share, with each country's rules. Server-side only in effect: components import ./address, never zod.
 */

import { z } from "zod";
import { fieldErrorsOf } from "./form-errors";
import {
  ADDRESS_FIELD_ORDER,
  ADDRESS_LIMITS,
  COUNTRIES,
  US_STATES,
  type AddressErrors,
  type CountryCode,
  type DeliveryAddress,
} from "./address";
import { checkboxField } from "./recovery-schemas";

const STATE_CODES = new Set<string>(US_STATES.map(([code]) => code));
const COUNTRY_CODES = new Set<string>(COUNTRIES.map((country) => country.code));

/** Postal code rules where a country has a simple one; elsewhere letters, digits, spaces and hyphens. */
const POSTAL_RULES: ReadonlyMap<string, { pattern: RegExp; message: string }> = new Map([
  ["US", { pattern: /^\d{5}(-?\d{4})?$/, message: "Enter a ZIP code of 5 or 9 digits, like 90001 or 90001-1234." }],
  ["CA", { pattern: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/, message: "Enter a Canadian postal code, like K1A 0B1." }],
  ["GB", { pattern: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/, message: "Enter a UK postcode, like SW1A 1AA." }],
  ["DE", { pattern: /^\d{5}$/, message: "Enter a German postal code of 5 digits, like 10115." }],
]);
const ANY_POSTAL_CODE = /^[A-Z0-9][A-Z0-9 -]{1,11}$/;

/** Trimmed, inner runs of white space made one space: what a label prints. */
const tidy = (value: string) => value.trim().replace(/\s+/g, " ");

function text(max: number, missing: string, tooLong: string) {
  return z.string({ error: missing }).transform(tidy).pipe(z.string().min(1, missing).max(max, tooLong));
}

function optionalText(max: number, tooLong: string) {
  return z
    .string()
    .transform(tidy)
    .pipe(z.string().max(max, tooLong))
    .optional()
    .transform((value) => (value ? value : null));
}

const addressFields = {
  name: text(
    ADDRESS_LIMITS.name,
    "Enter the full name of the person receiving the order.",
    `The name must be at most ${ADDRESS_LIMITS.name} characters.`,
  ),
  line1: text(
    ADDRESS_LIMITS.line,
    "Enter the street address.",
    `Address line 1 must be at most ${ADDRESS_LIMITS.line} characters.`,
  ),
  line2: optionalText(ADDRESS_LIMITS.line, `Address line 2 must be at most ${ADDRESS_LIMITS.line} characters.`),
  city: text(ADDRESS_LIMITS.city, "Enter the city.", `The city must be at most ${ADDRESS_LIMITS.city} characters.`),
  region: optionalText(ADDRESS_LIMITS.region, `The region must be at most ${ADDRESS_LIMITS.region} characters.`),
  postalCode: z
    .string({ error: "Enter the ZIP or postal code." })
    .max(40, "That postal code is too long.")
    .transform((value) => tidy(value).toUpperCase()),
  country: z
    .string({ error: "Choose the country." })
    .refine((value) => COUNTRY_CODES.has(value), "Choose a country from the list.")
    .transform((value) => value as CountryCode),
};

/** The e-mail a guest's receipt goes to. Signed-in shoppers' receipts go to their account's address. */
export const contactEmailSchema = z
  .string({ error: "Enter the e-mail address for your receipt." })
  .trim()
  .min(1, "Enter the e-mail address for your receipt.")
  .max(ADDRESS_LIMITS.email, "That e-mail address is too long.")
  .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
  .transform((email) => email.toLowerCase());

/** Applies the country's rules: a US state from the list, each country's postal code format. */
function checkCountryRules(address: z.infer<z.ZodObject<typeof addressFields>>, ctx: z.RefinementCtx): void {
  // The field's own refusal already said "Choose a country from the list"; its rules apply to listed countries only.
  if (!COUNTRY_CODES.has(address.country)) return;
  const isUs = address.country === "US";
  if (isUs && (!address.region || !STATE_CODES.has(address.region))) {
    ctx.addIssue({ code: "custom", path: ["region"], message: "Choose the state." });
  }
  const postal = address.postalCode;
  if (!postal) {
    ctx.addIssue({
      code: "custom",
      path: ["postalCode"],
      message: isUs ? "Enter the ZIP code." : "Enter the postal code.",
    });
    return;
  }
  const rule = POSTAL_RULES.get(address.country);
  if (rule ? !rule.pattern.test(postal) : !ANY_POSTAL_CODE.test(postal)) {
    ctx.addIssue({
      code: "custom",
      path: ["postalCode"],
      message: rule?.message ?? "Enter the postal code as it is written on your post.",
    });
  }
}

/** A US ZIP+4 written the one way Stripe and the carriers expect: 90001-1234. */
function normalise(address: z.infer<z.ZodObject<typeof addressFields>>): DeliveryAddress {
  const postalCode =
    address.country === "US" && /^\d{9}$/.test(address.postalCode)
      ? `${address.postalCode.slice(0, 5)}-${address.postalCode.slice(5)}`
      : address.postalCode;
  return { ...address, postalCode };
}

export const deliveryAddressSchema = z.strictObject(addressFields).superRefine(checkCountryRules).transform(normalise);

/**
 * POST /checkout/address: a new address (with the receipt e-mail when the shopper is a guest), or one of a signed-in
 * shopper's saved addresses by id.
 */
export const addressFormSchema = z
  .strictObject({ ...addressFields, email: contactEmailSchema.optional(), basketReminders: checkboxField })
  .superRefine(checkCountryRules);
export const chooseSavedAddressSchema = z.strictObject({
  savedAddressId: z.uuid({ error: "Choose one of your saved addresses." }),
});

export type AddressFormInput = z.infer<typeof addressFormSchema>;

export function toDeliveryAddress(input: AddressFormInput): DeliveryAddress {
  return normalise({
    name: input.name,
    line1: input.line1,
    line2: input.line2,
    city: input.city,
    region: input.region,
    postalCode: input.postalCode,
    country: input.country,
  });
}

/**
 * Checks a submitted address form: the schema, plus the receipt e-mail a guest must give (an account's receipts go to
 * its own address, so a signed-in shopper's form has no e-mail field). The first problem of each field is kept.
 */
export function checkAddressForm(
  raw: unknown,
  { isGuest }: { isGuest: boolean },
):
  | { ok: true; address: DeliveryAddress; contactEmail: string | null; reminderConsent: boolean }
  | { ok: false; errors: AddressErrors } {
  const parsed = addressFormSchema.safeParse(raw);
  const errors: AddressErrors = parsed.success
    ? {}
    : fieldErrorsOf(parsed.error, {
        fields: ADDRESS_FIELD_ORDER,
        unknownFields: (names) => `The form had fields we do not know: ${names.join(", ").slice(0, 200)}.`,
      });
  const email = parsed.success ? parsed.data.email : undefined;
  const sentEmail =
    raw && typeof raw === "object" && "email" in raw && typeof raw.email === "string" && raw.email.trim() !== "";
  if (isGuest && !sentEmail && !errors.email) errors.email = "Enter the e-mail address for your receipt.";
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    address: toDeliveryAddress(parsed.data),
    contactEmail: isGuest ? (email ?? null) : null,
    reminderConsent: parsed.data.basketReminders,
  };
}
