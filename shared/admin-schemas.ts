import { isStorableText } from "./storable-text";
import { z } from "zod";

/**
 * A price as an operator types it, in dollars: "12", "12.5", "12.50", "$1,299.00". Read digit by digit into integer
 * cents, never through a float.
 */
export function parseDollars(typed: string): number | null {
  const match = /^\$?\s*(\d{1,3}(?:,\d{3})*|\d+)(?:\.(\d{1,2}))?$/.exec(typed.trim());
  if (!match) return null;
  const dollars = Number(match[1]!.replaceAll(",", ""));
  const cents = Number((match[2] ?? "0").padEnd(2, "0"));
  return dollars * 100 + cents;
}

/** The most a product may cost: $999,999.99. */
export const MAX_PRICE_CENTS = 99_999_999;

/** The product form's fields (the picture travels beside them, as a file). Unknown fields are refused. */
export const adminProductSchema = z.strictObject({
  title: z.string().trim().min(1, "Enter a title.").max(200, "A title is at most 200 characters."),
  description: z
    .string()
    .max(10_000, "A description is at most 10,000 characters.")
    .transform((text) => text.replace(/\r\n/g, "\n").trim()),
  price: z
    .string()
    .max(20, "Enter a price like 12.99.")
    .transform((typed, context) => {
      if (typed.trim() === "") {
        context.addIssue({ code: "custom", message: "Enter a price." });
        return z.NEVER;
      }
      const cents = parseDollars(typed);
      if (cents === null) {
        context.addIssue({ code: "custom", message: "Enter a price in dollars and cents, like 12.99." });
        return z.NEVER;
      }
      if (cents < 1 || cents > MAX_PRICE_CENTS) {
        context.addIssue({ code: "custom", message: "A price is between $0.01 and $999,999.99." });
        return z.NEVER;
      }
      return cents;
    }),
  rating: z.enum(["1", "2", "3", "4", "5"], { error: "Choose a rating from 1 to 5." }).transform((rating) => Number(rating) as 1 | 2 | 3 | 4 | 5),
  featuredPosition: z
    .string()
    .trim()
    .max(4, "A featured position is a whole number from 1 to 1000, or empty.")
    .regex(/^(\d{1,4})?$/, "A featured position is a whole number from 1 to 1000, or empty.")
    .transform((typed, context) => {
      if (typed === "") return null;
      const position = Number(typed);
      if (position < 1 || position > 1000) {
        context.addIssue({ code: "custom", message: "A featured position is a whole number from 1 to 1000, or empty." });
        return z.NEVER;
      }
      return position;
    }),
  status: z.enum(["active", "archived"], { error: "Choose Active or Archived." }),
});

export type AdminProductInput = {
  title: string;
  description: string;
  priceCents: number;
  rating: 1 | 2 | 3 | 4 | 5;
  featuredPosition: number | null;
  status: "active" | "archived";
};

/** The form's values as the service takes them. */
export function toAdminProductInput(parsed: z.infer<typeof adminProductSchema>): AdminProductInput {
  return {
    title: parsed.title,
    description: parsed.description,
    priceCents: parsed.price,
    rating: parsed.rating,
    featuredPosition: parsed.featuredPosition,
    status: parsed.status,
  };
}

/** The role form: an account's e-mail address. */
export const operatorEmailSchema = z.strictObject({
  intent: z.enum(["grant", "revoke"]),
  email: z
    .string()
    .trim()
    .min(1, "Enter an e-mail address.")
    .max(254, "That e-mail address is too long.")
    .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
    .transform((email) => email.toLowerCase()),
});

/** The list's query string: search, active or archived, page. Anything odd falls back to the first page of all. */
export const adminProductListSchema = z.object({
  q: z.string().trim().max(200).refine(isStorableText).catch(""),
  status: z.enum(["active", "archived"]).catch("active"),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});

/** A form's errors by field name (the first message each), from a schema's issues. */
export function errorsByField(issues: readonly { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly string[] }[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const field = issue.code === "unrecognized_keys" ? "form" : String(issue.path[0] ?? "form");
    errors[field] ??= issue.code === "unrecognized_keys" ? "The form was not understood. Reload the page and try again." : issue.message;
  }
  return errors;
}
