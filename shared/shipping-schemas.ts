/**
 * The console's shipping and tax forms (/admin/shipping, /admin/taxes): what an operator types, checked field by
 * field so each refusal shows under its field. Unknown fields are refused.
 */

import { z } from "zod";
import { COUNTRIES, US_STATES } from "./address";
import { MAX_PRICE_CENTS, parseDollars } from "./admin-schemas";
import { RATE_UNITS_PER_PERCENT } from "./pricing";
import { rowIdField } from "./ids";
import { formatCents } from "./money";

const COUNTRY_CODES = new Set<string>(COUNTRIES.map((country) => country.code));
const STATE_CODES = new Set<string>(US_STATES.map(([code]) => code));

/** "US, ca gb" -> ["US", "CA", "GB"]: codes separated by commas or spaces, upper-cased, each once. */
function codesOf(typed: string): string[] {
  return [
    ...new Set(
      typed
        .toUpperCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ];
}

const countriesField = z
  .string()
  .max(500, "List at most the countries the address form offers.")
  .transform((typed, context) => {
    const codes = codesOf(typed);
    if (codes.length === 0) {
      context.addIssue({ code: "custom", message: "Add at least one country." });
      return z.NEVER;
    }
    const unknown = codes.filter((code) => !COUNTRY_CODES.has(code));
    if (unknown.length > 0) {
      context.addIssue({
        code: "custom",
        message: `Unknown country: ${unknown.join(", ")}. Use the two-letter codes the address form offers, like US, CA, GB.`,
      });
      return z.NEVER;
    }
    return codes;
  });

const statesField = z
  .string()
  .max(500, "List at most the US states.")
  .transform((typed, context) => {
    const codes = codesOf(typed);
    const unknown = codes.filter((code) => !STATE_CODES.has(code));
    if (unknown.length > 0) {
      context.addIssue({
        code: "custom",
        message: `Unknown US state: ${unknown.join(", ")}. Use two-letter codes, like CA, NY.`,
      });
      return z.NEVER;
    }
    return codes;
  });

/** A price as typed in dollars; `optional` lets an empty field mean "none". */
function dollarsField(what: string, optional: boolean) {
  return z
    .string()
    .max(20, `Enter ${what} like 5.99.`)
    .transform((typed, context) => {
      const trimmed = typed.trim();
      if (trimmed === "") {
        if (optional) return null;
        context.addIssue({ code: "custom", message: `Enter ${what}, like 5.99 (0 for free).` });
        return z.NEVER;
      }
      if (trimmed.startsWith("-")) {
        context.addIssue({ code: "custom", message: `${what[0]!.toUpperCase()}${what.slice(1)} cannot be negative.` });
        return z.NEVER;
      }
      const cents = parseDollars(trimmed);
      if (cents === null || cents > MAX_PRICE_CENTS) {
        context.addIssue({ code: "custom", message: `Enter ${what} in dollars and cents, like 5.99.` });
        return z.NEVER;
      }
      return cents;
    });
}

/** "500 = 4.99" per line: up to that many grams, that price. */
const weightTiersField = z
  .string()
  .max(2000, "At most 20 weight tiers.")
  .transform((typed, context) => {
    const tiers: { upToGrams: number; priceCents: number }[] = [];
    for (const line of typed
      .split(/\r?\n/)
      .map((text) => text.trim())
      .filter(Boolean)) {
      const match = /^(\d{1,7})\s*(?:g)?\s*[=:]\s*\$?\s*(\S+)$/.exec(line);
      const priceCents = match ? parseDollars(match[2]!) : null;
      if (!match || priceCents === null || Number(match[1]) < 1) {
        context.addIssue({
          code: "custom",
          message: `Write each tier as grams = price, like 500 = 4.99 ("${line.slice(0, 40)}" is not).`,
        });
        return z.NEVER;
      }
      // The cap every other price has: a larger one would not fit the column.
      if (priceCents > MAX_PRICE_CENTS) {
        context.addIssue({
          code: "custom",
          message: `A tier's price is at most ${formatCents(MAX_PRICE_CENTS)} ("${line.slice(0, 40)}" is more).`,
        });
        return z.NEVER;
      }
      tiers.push({ upToGrams: Number(match[1]), priceCents });
    }
    if (tiers.length > 20) {
      context.addIssue({ code: "custom", message: "At most 20 weight tiers." });
      return z.NEVER;
    }
    if (new Set(tiers.map((tier) => tier.upToGrams)).size !== tiers.length) {
      context.addIssue({ code: "custom", message: "Each weight appears in one tier only." });
      return z.NEVER;
    }
    return tiers.sort((a, b) => a.upToGrams - b.upToGrams);
  });

const zoneName = z.string().trim().min(1, "Enter a zone name.").max(100, "A zone name is at most 100 characters.");

export const zoneFormSchema = z.strictObject({
  intent: z.enum(["add-zone", "save-zone"]),
  zoneId: rowIdField.optional(),
  name: zoneName,
  countries: countriesField,
  states: statesField.prefault(""),
});

export const methodFormSchema = z.strictObject({
  intent: z.enum(["add-method", "save-method"]),
  zoneId: rowIdField,
  methodId: rowIdField.optional(),
  name: z.string().trim().min(1, "Enter a method name.").max(100, "A method name is at most 100 characters."),
  estimate: z.string().trim().max(100, "A delivery estimate is at most 100 characters."),
  price: dollarsField("a price", false).pipe(z.number()),
  freeOver: dollarsField("a Free over subtotal", true),
  weightTiers: weightTiersField.prefault(""),
});

export const removeFormSchema = z.strictObject({
  intent: z.enum(["remove-zone", "remove-method", "remove-rate"]),
  id: rowIdField,
});

/** "7.25" -> 7250 thousandths of a percent; 0 to 100, up to 3 decimals, never through a float. */
export function parseRate(typed: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,3}))?\s*%?$/.exec(typed.trim());
  if (!match) return null;
  const rate = Number(match[1]) * RATE_UNITS_PER_PERCENT + Number((match[2] ?? "0").padEnd(3, "0"));
  return rate <= 100 * RATE_UNITS_PER_PERCENT ? rate : null;
}

export const taxRateFormSchema = z
  .strictObject({
    intent: z.enum(["add-rate", "save-rate"]),
    rateId: rowIdField.optional(),
    country: z
      .string()
      .trim()
      .max(10)
      .transform((typed) => typed.toUpperCase())
      .refine((code) => COUNTRY_CODES.has(code), "Choose a country the address form offers, like US."),
    state: z
      .string()
      .trim()
      .max(10)
      .transform((typed) => typed.toUpperCase())
      .default(""),
    rate: z
      .string()
      .max(20)
      .transform((typed, context) => {
        const rate = parseRate(typed);
        if (rate === null) {
          context.addIssue({
            code: "custom",
            message: "Enter a rate from 0 to 100 %, with up to 3 decimals, like 7.25.",
          });
          return z.NEVER;
        }
        return rate;
      }),
    taxShipping: z.literal("on").optional(),
    taxGiftCards: z.literal("on").optional(),
  })
  .superRefine((form, context) => {
    if (form.state === "") return;
    if (form.country !== "US")
      context.addIssue({
        code: "custom",
        path: ["state"],
        message: "A state can only be given for the United States.",
      });
    else if (!STATE_CODES.has(form.state))
      context.addIssue({
        code: "custom",
        path: ["state"],
        message: `Unknown US state: ${form.state}. Use a two-letter code, like CA.`,
      });
  });

/** The shopper's choice of delivery option on /payment (the form's radio, or a JSON call). */
export const deliveryOptionSchema = z.strictObject({
  methodId: z.uuid({ error: "Choose a delivery option." }),
});

/** The query parameter a refused delivery option comes back to /payment with, without JavaScript. */
export const DELIVERY_ERROR_PARAM = "deliveryError";
