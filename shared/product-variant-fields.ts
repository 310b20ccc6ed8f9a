// The product form's variant fields by name: how a variant row's inputs are named and keyed, and the rows an option
// list makes. Free of zod, so the console's components draw the same names the form's schema reads.

/** A variant row's inputs, the last part of their field names. */
export const VARIANT_INPUTS = [
  "sku",
  "price",
  "compareAt",
  "stock",
  "lowStockAt",
  "stockWas",
  "track",
  "continue",
  "weight",
  "picture",
  "removePicture",
] as const;
/** "Low stock at" when the operator leaves it blank. */
export const DEFAULT_LOW_STOCK_AT = 5;

export type VariantInput = (typeof VARIANT_INPUTS)[number];

/** The form field that names a variant row's input: v:{values joined by |}:{input}. */
export function variantField(key: string, input: VariantInput): string {
  return `v:${key}:${input}`;
}

/** Whether a form field is a variant row's picture (a file), and which row's: v:{key}:picture. */
export function variantPictureKey(name: string): string | null {
  return name.startsWith("v:") && name.endsWith(":picture") ? name.slice(2, -":picture".length) : null;
}

/** A variant row's key: its values joined by "|" ("" for a product without options). */
export function variantKey(values: readonly string[]): string {
  return values.join("|");
}

/** Every combination of the options' values, in the options' order (S/Black, S/White, M/Black, …). */
export function combinations(options: readonly { values: readonly string[] }[]): string[][] {
  return options.reduce<string[][]>(
    (combos, option) => combos.flatMap((combo) => option.values.map((value) => [...combo, value])),
    [[]],
  );
}

/** Whether a field belongs to the "Options" section or the variants table (read apart from the product's own fields). */
export function isVariantFormField(name: string): boolean {
  return /^option(Name|Values)\d$/.test(name) || name.startsWith("v:") || name === "intent";
}
