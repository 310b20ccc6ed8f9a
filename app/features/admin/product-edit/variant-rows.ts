// The product form's options and variant rows as the form draws them: as submitted (after an error or "Add option"),
// else as saved. Kept apart from the markup so the page shows exactly the rows its schema then reads.

import { decimalAmount } from "#shared/money";
import { combinations, DEFAULT_LOW_STOCK_AT, variantField, variantKey } from "#shared/product-variant-fields";

/** A saved variant, as the product form's loader reads it. */
export interface SavedVariant {
  id: string;
  optionValues: string[];
  sku: string | null;
  priceCents: number;
  compareAtCents: number | null;
  onHand: number;
  lowStockAt: number | null;
  weightGrams: number;
  image?: { src: string };
  stock: { tracksStock: boolean; continueSelling: boolean };
}

/** One variant row of the form, every input's value as a string. */
export interface VariantRow {
  key: string;
  label: string;
  sku: string;
  price: string;
  compareAt: string;
  stock: string;
  stockWas: string;
  lowStockAt: string;
  weight: string;
  picture: string | null;
  removePicture: boolean;
  track: boolean;
  continueSelling: boolean;
}

/**
 * The option inputs to draw (one more after "Add option", at most 3), each option input's value, the options the rows
 * come from, and the rows (their combinations, at most 250).
 */
export function variantRows({
  submitted,
  savedOptions,
  savedVariants,
  extraOption,
}: {
  submitted: Record<string, string> | undefined;
  savedOptions: { name: string; values: string[] }[];
  savedVariants: SavedVariant[];
  extraOption: boolean;
}) {
  const optionValue = (index: number, part: "Name" | "Values") =>
    submitted
      ? (submitted[`option${part}${index + 1}`] ?? "")
      : part === "Name"
        ? (savedOptions[index]?.name ?? "")
        : (savedOptions[index]?.values.join(", ") ?? "");
  const shownOptions = submitted
    ? [1, 2, 3].filter(
        (index) => (submitted[`optionName${index}`] ?? "") !== "" || (submitted[`optionValues${index}`] ?? "") !== "",
      ).length
    : savedOptions.length;
  const optionRows = Math.min(3, Math.max(1, shownOptions + (extraOption ? 1 : 0)));
  const rowOptions = submitted
    ? [0, 1, 2]
        // Each value once: a repeated value is an error under its field, not a second row.
        .map((index) => ({
          values: [
            ...new Set(
              optionValue(index, "Values")
                .split(",")
                .map((value) => value.trim())
                .filter(Boolean),
            ),
          ],
        }))
        .filter((option) => option.values.length > 0)
    : savedOptions;
  const savedByKey = new Map(savedVariants.map((variant) => [variantKey(variant.optionValues), variant]));
  const rows = combinations(rowOptions)
    .slice(0, 250)
    .map((values) => {
      const key = variantKey(values);
      const saved = savedByKey.get(key);
      const read = (input: Parameters<typeof variantField>[1], fallback: string) =>
        submitted ? (submitted[variantField(key, input)] ?? fallback) : fallback;
      return {
        key,
        label: values.join(" / "),
        sku: read("sku", saved?.sku ?? ""),
        price: read("price", saved ? decimalAmount(saved.priceCents) : ""),
        compareAt: read("compareAt", saved?.compareAtCents ? decimalAmount(saved.compareAtCents) : ""),
        stock: read("stock", saved ? String(saved.onHand) : ""),
        stockWas: saved ? String(saved.onHand) : "",
        lowStockAt: read("lowStockAt", String(saved?.lowStockAt ?? DEFAULT_LOW_STOCK_AT)),
        weight: read("weight", saved ? String(saved.weightGrams) : ""),
        // The variant's own picture; a row whose values changed is a new variant, with none yet.
        picture: saved?.image?.src ?? null,
        removePicture: submitted ? submitted[variantField(key, "removePicture")] === "on" : false,
        track: submitted ? submitted[variantField(key, "track")] === "on" : (saved?.stock.tracksStock ?? false),
        continueSelling: submitted
          ? submitted[variantField(key, "continue")] === "on"
          : (saved?.stock.continueSelling ?? false),
      };
    });
  return { optionRows, optionValue, rowOptions, rows };
}
