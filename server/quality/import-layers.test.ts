/**
 * Every folder of server/ (and every file at its top) has its place in eslint.config.js's SERVER_LAYERS, which the
 * lint reads to keep each import arrow inside server/ pointing down: a folder left out would be held by nothing.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SERVER_LAYERS } from "../../eslint.config.js";

/** Folders that hold only tests and their harness: they may reach anything. */
const TESTS_ONLY = ["testing", "quality", "security"];

it("places every folder of server/ in the import layers", () => {
  const server = join(import.meta.dirname, "..");
  const entries = readdirSync(server, { withFileTypes: true })
    .filter((entry) => (entry.isDirectory() ? !TESTS_ONLY.includes(entry.name) : /^[^.]+\.ts$/.test(entry.name)))
    .map((entry) => entry.name);
  const missing = entries.filter((name) => !SERVER_LAYERS.includes(name));
  expect(
    missing,
    missing
      .map(
        (name) =>
          `server/${name} is not in SERVER_LAYERS (eslint.config.js): add "${name}" below every folder that imports it and above every folder it imports`,
      )
      .join("\n"),
  ).toEqual([]);
  expect(SERVER_LAYERS.filter((name) => !entries.includes(name) && name !== "db/migrate")).toEqual([]);
});
