import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
/** The one place a price is multiplied by a quantity: the line amount the pricing function prices every line with. */
const ALLOWED = new Set(["shared/pricing.ts"]);

const PRICE = String.raw`[\w.$]*(?:price|Price|PRICE|amount|Amount|cents|Cents)[\w.$]*(?:\([^()]*\))?`;
const QUANTITY = String.raw`[\w.$]*(?:quantity|Quantity|qty)[\w.$]*`;
/** `price * quantity` either way round, in code or in SQL (`price_cents * quantity`). */
const MULTIPLIES = new RegExp(String.raw`(?:${PRICE}\s*\*\s*${QUANTITY}|${QUANTITY}\s*\*\s*${PRICE})`);

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

it("no code but the pricing function multiplies a price by a quantity: line amounts come from the quote or the order", () => {
  const found: string[] = [];
  for (const file of ["app", "server", "shared"].flatMap(sourceFiles)) {
    if (ALLOWED.has(file)) continue;
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .forEach((line, index) => {
        // Comments may describe the rule ("price x quantity"); only code and SQL are judged.
        const code = line.replace(/\/\/.*$/, "").replace(/^\s*\*.*$/, "");
        if (MULTIPLIES.test(code)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  expect(found, "use lineAmountCents (shared/pricing.ts), the quote or orderLineAmounts (shared/orders.ts)").toEqual(
    [],
  );
});

it("the rule sees a multiplication when there is one", () => {
  expect(MULTIPLIES.test("formatCents(item.priceCents * item.quantity)")).toBe(true);
  expect(MULTIPLIES.test("line.quantity * product.priceCents")).toBe(true);
  expect(MULTIPLIES.test("sum(price_cents * quantity)")).toBe(true);
  expect(MULTIPLIES.test("(line.weightGrams ?? 0) * line.quantity")).toBe(false);
});
