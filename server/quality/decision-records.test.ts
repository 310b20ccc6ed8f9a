/**
 * Each decision record in docs/decisions/ is one page: its date, the context, the decision and its consequences, in
 * at most 700 words, so that a reader finds the choice and its reasons without wading.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const DECISIONS = join(import.meta.dirname, "..", "..", "docs", "decisions");
const MOST_WORDS = 700;

it("keeps every decision record to one page with its date, context, decision and consequences", () => {
  const problems: string[] = [];
  for (const name of readdirSync(DECISIONS).filter((file) => file.endsWith(".md"))) {
    const text = readFileSync(join(DECISIONS, name), "utf8");
    const words = text.split(/\s+/).filter(Boolean).length;
    if (words > MOST_WORDS) problems.push(`docs/decisions/${name}: ${words} words, over ${MOST_WORDS}`);
    if (!/^- Date: \d{4}-\d{2}-\d{2}$/m.test(text)) problems.push(`docs/decisions/${name}: no "- Date: YYYY-MM-DD"`);
    for (const heading of ["## Context", "## Decision", "## Consequences"])
      if (!text.split("\n").some((line) => line.startsWith(heading)))
        problems.push(`docs/decisions/${name}: no "${heading}"`);
  }
  expect(problems, problems.join("\n")).toEqual([]);
});
