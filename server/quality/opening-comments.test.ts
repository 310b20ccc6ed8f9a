// Every source file of the shop opens with a comment of its own that says what the file is for: a reader who opens
// it, or lists a folder, learns why it exists before reading its code.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/**
 * Whether the text opens with a comment that belongs to the file: `//` lines or a block comment, first thing in the
 * file, followed by a blank line (or nothing). A doc comment right above the first import, declaration or export is
 * that statement's, not the file's.
 */
function hasOpeningComment(text: string): boolean {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  let index = lines.findIndex((line) => line.trim() !== "");
  if (index === -1) return false;
  const first = lines[index]!.trimStart();
  if (first.startsWith("//")) {
    while (index < lines.length && lines[index]!.trimStart().startsWith("//")) index += 1;
  } else if (first.startsWith("/*")) {
    while (index < lines.length && !lines[index]!.includes("*/")) index += 1;
    if (index === lines.length) return false;
    index += 1;
  } else return false;
  return index >= lines.length || lines[index]!.trim() === "";
}

const files = ["app", "server", "shared"].flatMap(sourceFiles);

it("every source file of app/, server/ and shared/ opens with a comment on the file, not on its first statement", () => {
  const missing = files.filter((file) => !hasOpeningComment(readFileSync(join(ROOT, file), "utf8")));
  expect(
    missing,
    "open each with one or two lines saying what the file is for and why it exists, then a blank line",
  ).toEqual([]);
});

it("tells a file's comment from its first statement's", () => {
  expect(hasOpeningComment("// The basket's rules.\n\nexport const A = 1;\n")).toBe(true);
  expect(hasOpeningComment("/**\n * The basket's rules.\n */\n\nimport { z } from 'zod';\n")).toBe(true);
  expect(hasOpeningComment("/** The basket's rules. */\nexport const A = 1;\n")).toBe(false);
  expect(hasOpeningComment("/** The basket's rules. */\nimport { z } from 'zod';\n")).toBe(false);
  expect(hasOpeningComment("import { z } from 'zod';\n\n// The basket's rules.\n\nexport const A = 1;\n")).toBe(false);
  expect(hasOpeningComment("/* never closed\nexport const A = 1;\n")).toBe(false);
});
