// How a return's lines are worded for pages and e-mails: each item with its variant's option values.

import type { DB, Writer } from "#server/db/client";
import { describeItemOptions, type OrderItem } from "#shared/orders";
import type { ReturnEmailLine } from "#server/email/templates/return-emails";

/** The option values of variants, by id: "Size: M, Colour: Black" ("" for a product without options). */
export async function variantDescriptions(executor: DB | Writer, variantIds: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(variantIds)];
  if (ids.length === 0) return new Map();
  const variants = await executor
    .selectFrom("product_variants")
    .select(["id", "product_id", "option_values"])
    .where("id", "in", ids)
    .execute();
  const options = variants.length
    ? await executor
        .selectFrom("product_options")
        .select(["product_id", "name", "position"])
        .where("product_id", "in", [...new Set(variants.map((variant) => variant.product_id))])
        .orderBy("position")
        .execute()
    : [];
  const described = new Map<string, string>();
  for (const variant of variants) {
    const names = options.filter((option) => option.product_id === variant.product_id).map((option) => option.name);
    described.set(
      variant.id,
      variant.option_values.map((value, position) => `${names[position] ?? "Option"}: ${value}`).join(", "),
    );
  }
  return described;
}

/** A return's lines as its e-mails list them: the item with its options, and what is to happen to it. */
export async function describeReturnLines(
  executor: DB | Writer,
  items: OrderItem[],
  lines: { index: number; quantity: number; resolution: "refund" | "replace"; replacementVariantId?: string | null }[],
): Promise<ReturnEmailLine[]> {
  const replacements = await variantDescriptions(
    executor,
    lines.flatMap((line) => (line.replacementVariantId ? [line.replacementVariantId] : [])),
  );
  return lines.map((line) => {
    const item = items[line.index]!;
    const options = describeItemOptions(item);
    const replacement = line.replacementVariantId ? replacements.get(line.replacementVariantId) : undefined;
    return {
      title: options ? `${item.title} (${options})` : item.title,
      quantity: line.quantity,
      resolution: line.resolution === "replace" ? `Replace with ${replacement || "another option"}` : "Refund",
    };
  });
}
