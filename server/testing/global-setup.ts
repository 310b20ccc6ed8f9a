import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { wrapPglite } from "../db/client";
import { prepareDatabase } from "../services";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDumpPath: string;
  }
}

/**
 * PGlite's first start in an empty directory takes seconds and hundreds of MB. Do it once per run:
 * migrate and seed one instance, dump it, and let every test file start from the dump.
 */
export default async function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), "storefront-test-"));
  const pglite = new PGlite();
  const database = wrapPglite(pglite);
  await prepareDatabase(database.db);
  const dump = await pglite.dumpDataDir("gzip");
  await database.close();
  const dumpPath = join(directory, "pglite.tar.gz");
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteDumpPath", dumpPath);
  return () => rmSync(directory, { recursive: true, force: true });
}
