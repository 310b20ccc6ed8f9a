// The console's product, department, import and staff forms as strict schemas, and the prices an operator types read
// into integer cents.

import "./zod-policy";
import { isStorableText } from "./storable-text";
import { z } from "zod";
import { CONSOLE_AREA_IDS, type ConsoleArea } from "./console-access";
import { DEFAULT_LOW_STOCK_AT, VARIANT_INPUTS, variantField, variantKey, combinations } from "./product-variant-fields";

export {
  DEFAULT_LOW_STOCK_AT,
  variantField,
  variantPictureKey,
  variantKey,
  combinations,
  isVariantFormField,
  type VariantInput,
} from "./product-variant-fields";

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
  featuredPosition: z
    .string()
    .trim()
    .max(4, "A featured position is a whole number from 1 to 1000, or empty.")
    .regex(/^(\d{1,4})?$/, "A featured position is a whole number from 1 to 1000, or empty.")
    .transform((typed, context) => {
      if (typed === "") return null;
      const position = Number(typed);
      if (position < 1 || position > 1000) {
        context.addIssue({
          code: "custom",
          message: "A featured position is a whole number from 1 to 1000, or empty.",
        });
        return z.NEVER;
      }
      return position;
    }),
  status: z.enum(["active", "archived"], { error: "Choose Active or Archived." }),
  /** "Gift card": not one (""), its variants' prices as denominations, or any amount from $5 to $500. */
  giftCard: z
    .enum(["", "denominations", "any_amount"], { error: "Choose whether it is a gift card." })
    .optional()
    .transform((kind) => (kind ? kind : null)),
  // The multi-select's choices, joined by commas (shared/form-fields.ts); absent when none is chosen.
  departmentIds: z
    .string()
    .max(2_000, "Choose at most 20 departments.")
    .optional()
    .transform((joined, context) => {
      const ids = (joined ?? "").split(",").filter((id) => id !== "");
      if (ids.length > 20) {
        context.addIssue({ code: "custom", message: "Choose at most 20 departments." });
        return z.NEVER;
      }
      if (ids.some((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))) {
        context.addIssue({ code: "custom", message: "Choose departments from the list." });
        return z.NEVER;
      }
      return ids;
    }),
});

/** The department form (/admin/departments): a new one, or changes to one. */
export const adminDepartmentSchema = z.strictObject({
  intent: z.enum(["create", "update", "remove"]),
  id: z.string().max(40).optional(),
  name: z.string().trim().max(80, "A name is at most 80 characters.").optional(),
  description: z
    .string()
    .max(1_000, "A description is at most 1,000 characters.")
    .optional()
    .transform((text) => text?.replace(/\r\n/g, "\n").trim()),
  parentId: z
    .string()
    .max(40)
    .optional()
    .transform((id) => (id ? id : null)),
  position: z
    .string()
    .trim()
    .max(4, "A position is a whole number from 0 to 1000.")
    .optional()
    .transform((typed, context) => {
      if (typed === undefined || typed === "") return undefined;
      if (!/^\d{1,4}$/.test(typed) || Number(typed) > 1000) {
        context.addIssue({ code: "custom", message: "A position is a whole number from 0 to 1000." });
        return z.NEVER;
      }
      return Number(typed);
    }),
});

export type AdminProductInput = {
  title: string;
  description: string;
  priceCents: number;
  featuredPosition: number | null;
  status: "active" | "archived";
  departmentIds: string[];
  giftCard: "denominations" | "any_amount" | null;
};

/** The form's values as the service takes them. */
export function toAdminProductInput(parsed: z.infer<typeof adminProductSchema>): AdminProductInput {
  return {
    title: parsed.title,
    description: parsed.description,
    priceCents: parsed.price,
    featuredPosition: parsed.featuredPosition,
    status: parsed.status,
    departmentIds: parsed.departmentIds,
    giftCard: parsed.giftCard,
  };
}

/** The CSV import's form (the file travels beside it): which button was pressed. */
export const productImportFormSchema = z.strictObject({
  intent: z.enum(["preview", "import"], { error: "The form was not understood. Reload the page and try again." }),
});

const staffEmail = z
  .string()
  .trim()
  .min(1, "Enter an e-mail address.")
  .max(254, "That e-mail address is too long.")
  .pipe(z.email({ error: "Enter a valid e-mail address, like name@example.com." }))
  .transform((email) => email.toLowerCase());

/** A staff form's area boxes ("area-orders": "on"), ticked or absent. */
const areaFields = Object.fromEntries(
  CONSOLE_AREA_IDS.map((area) => [`area-${area}`, z.literal("on").optional()]),
) as Record<`area-${ConsoleArea}`, z.ZodOptional<z.ZodLiteral<"on">>>;

/** "Invite staff" and "Change role": an address, a role and, for Staff, at least one area. */
export const staffRoleSchema = z
  .strictObject({
    intent: z.enum(["invite", "change-role"]),
    email: staffEmail,
    role: z.enum(["owner", "manager", "staff"], { error: "Choose a role." }),
    ...areaFields,
  })
  .transform(({ intent, email, role, ...ticked }) => ({
    intent,
    email,
    role,
    areas: CONSOLE_AREA_IDS.filter((area) => ticked[`area-${area}`] === "on"),
  }))
  .refine((change) => change.role !== "staff" || change.areas.length > 0, {
    message: "Tick at least one area for Staff.",
    path: ["areas"],
  });

/** "Remove access". */
export const staffRemovalSchema = z.strictObject({ intent: z.literal("remove"), email: staffEmail });

/** The list's query string: search, active or archived, page. Anything odd falls back to the first page of all. */
export const adminProductListSchema = z.object({
  q: z.string().trim().max(200).refine(isStorableText).catch(""),
  status: z.enum(["active", "archived"]).catch("active"),
  /** "low": at most 5 left (and some); "out": none left; anything else: every product. */
  stock: z.enum(["low", "out", ""]).catch(""),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
});

/** The product form's "Options" section and variants table, as typed. */
export interface VariantFormInput {
  options: { name: string; values: string[] }[];
  /** One per combination of the options' values (one for a product without options), keyed by its values. */
  variants: {
    key: string;
    optionValues: string[];
    sku: string | null;
    /** null: the product's price. */
    priceCents: number | null;
    compareAtCents: number | null;
    tracksStock: boolean;
    continueSelling: boolean;
    /** undefined: the quantity is left as it is (an oversold variant's stays below zero). */
    onHand?: number;
    /** "Low stock at": the console counts the variant low at or under this many available; undefined: left as is. */
    lowStockAt?: number;
    /** For shipping rates by weight; 0 when left blank. */
    weightGrams: number;
    /** "Remove picture": back to the product's picture. A new picture travels beside the form, as a file. */
    removePicture: boolean;
  }[];
}

/** The heaviest variant: a tonne, far above any parcel a shop ships (and far below an integer column's limit). */
export const MAX_WEIGHT_GRAMS = 1_000_000;

const WEIGHT_MESSAGE = "Enter the weight in whole grams, like 250.";

/** A variant's "Weight (g)" as typed: whole grams from 0 to MAX_WEIGHT_GRAMS; blank is 0. */
export const variantWeightSchema = z
  .string()
  .trim()
  .max(12, WEIGHT_MESSAGE)
  .transform((typed, context) => {
    if (typed === "") return 0;
    if (/^-\s*\d/.test(typed)) {
      context.addIssue({ code: "custom", message: "A weight can't be below zero." });
      return z.NEVER;
    }
    // "1,500" is as an operator writes it; "1.5" is not a whole number of grams.
    if (!/^(\d{1,3}(,\d{3})*|\d+)$/.test(typed)) {
      context.addIssue({ code: "custom", message: WEIGHT_MESSAGE });
      return z.NEVER;
    }
    const grams = Number(typed.replaceAll(",", ""));
    if (grams > MAX_WEIGHT_GRAMS) {
      context.addIssue({ code: "custom", message: "A weight is at most 1,000,000 g." });
      return z.NEVER;
    }
    return grams;
  });

const MAX_OPTIONS_ON_FORM = 3;
const MAX_VALUES = 100;
const MAX_VARIANT_ROWS = 250;

/**
 * Reads the "Options" section and the variants table. Errors are keyed by field name, to show under the field; with
 * any error nothing is saved. The table's rows are the combinations of the options as submitted (a row's fields
 * from before the options changed are left unread), but a row input the form never has is refused, as the product's
 * own schema refuses an unknown field. `pictureKeys`: the rows whose Picture has a file chosen.
 */
export function parseVariantForm(
  fields: Record<string, string>,
  pictureKeys: ReadonlySet<string> = new Set(),
): { ok: true; input: VariantFormInput } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const knownInputs: readonly string[] = VARIANT_INPUTS;
  if (
    Object.keys(fields).some(
      (name) => name.startsWith("v:") && !knownInputs.includes(name.slice(name.lastIndexOf(":") + 1)),
    )
  ) {
    return { ok: false, errors: { form: "The form was not understood. Reload the page and try again." } };
  }
  const options: VariantFormInput["options"] = [];
  for (let index = 1; index <= MAX_OPTIONS_ON_FORM; index++) {
    const name = (fields[`optionName${index}`] ?? "").trim();
    const values = (fields[`optionValues${index}`] ?? "")
      .split(",")
      .map((value) => value.trim())
      .filter((value) => value !== "");
    if (name === "" && values.length === 0) continue;
    if (name === "") errors[`optionName${index}`] = "Enter the option's name, like Size.";
    else if (name.length > 60) errors[`optionName${index}`] = "An option's name is at most 60 characters.";
    else if (options.some((option) => option.name.toLowerCase() === name.toLowerCase()))
      errors[`optionName${index}`] = "Each option's name appears once.";
    if (values.length === 0) errors[`optionValues${index}`] = "Enter the option's values, separated by commas.";
    else if (values.length > MAX_VALUES) errors[`optionValues${index}`] = `An option has at most ${MAX_VALUES} values.`;
    else if (new Set(values.map((value) => value.toLowerCase())).size !== values.length)
      errors[`optionValues${index}`] = "Each value appears once in an option.";
    else if (values.some((value) => value.length > 60 || value.includes("|")))
      errors[`optionValues${index}`] = "A value is at most 60 characters, without |.";
    options.push({ name, values });
  }
  const combos = combinations(options);
  if (combos.length > MAX_VARIANT_ROWS)
    errors[`optionValues${options.length}`] ??=
      `A product has at most ${MAX_VARIANT_ROWS} variants: these options make ${combos.length}.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  const variants: VariantFormInput["variants"] = [];
  const skus = new Set<string>();
  for (const optionValues of combos) {
    const key = variantKey(optionValues);
    const read = (input: Parameters<typeof variantField>[1]) => (fields[variantField(key, input)] ?? "").trim();
    const sku = read("sku");
    if (sku.length > 64) errors[variantField(key, "sku")] = "A SKU is at most 64 characters.";
    else if (sku !== "" && skus.has(sku.toLowerCase()))
      errors[variantField(key, "sku")] = "This SKU is already used by another variant.";
    if (sku !== "") skus.add(sku.toLowerCase());
    const priceCents = readMoney(read("price"), variantField(key, "price"), errors);
    const compareAtCents = readMoney(read("compareAt"), variantField(key, "compareAt"), errors);
    const typedStock = read("stock");
    let onHand: number | undefined;
    if (typedStock !== read("stockWas")) {
      if (!/^-?\d{1,7}$/.test(typedStock))
        errors[variantField(key, "stock")] = "Enter the stock as a whole number, like 12.";
      else if (Number(typedStock) < 0) errors[variantField(key, "stock")] = "Stock can't be below zero.";
      else onHand = Number(typedStock);
    }
    const typedLowStockAt = read("lowStockAt");
    if (typedLowStockAt !== "" && !/^\d{1,6}$/.test(typedLowStockAt))
      errors[variantField(key, "lowStockAt")] = "Enter low stock at as a whole number, like 5.";
    const weight = variantWeightSchema.safeParse(fields[variantField(key, "weight")] ?? "");
    if (!weight.success) errors[variantField(key, "weight")] = weight.error.issues[0]!.message;
    const removePicture = read("removePicture") === "on";
    if (removePicture && pictureKeys.has(key))
      errors[variantField(key, "picture")] = "Choose a new picture or tick Remove picture, not both.";
    variants.push({
      key,
      optionValues,
      sku: sku === "" ? null : sku,
      priceCents,
      compareAtCents,
      tracksStock: read("track") === "on",
      continueSelling: read("continue") === "on",
      ...(onHand === undefined ? {} : { onHand }),
      lowStockAt: typedLowStockAt === "" ? DEFAULT_LOW_STOCK_AT : Number(typedLowStockAt),
      weightGrams: weight.success ? weight.data : 0,
      removePicture,
    });
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, input: { options, variants } };
}

function readMoney(typed: string, field: string, errors: Record<string, string>): number | null {
  if (typed === "") return null;
  const cents = parseDollars(typed);
  if (cents === null || cents > MAX_PRICE_CENTS) {
    errors[field] = "Enter a price in dollars and cents, like 12.99.";
    return null;
  }
  return cents;
}
