// The test run's setup: the PGlite dump every test database starts from, and the PostgreSQL schemas of this run,
// dropped at its end.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { createPglite, wrapPglite } from "#server/db/client";
import { prepareDatabase } from "#server/services";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDumpPath: string;
    /** Every PostgreSQL schema this run creates starts with it (see testSchemaName). */
    testSchemaPrefix: string;
  }
}

/**
 * PGlite's first start in an empty directory takes seconds and hundreds of MB. Do it once per run:
 * migrate and seed one instance, dump it, and let every test file start from the dump.
 */
export default async function setup(project: TestProject) {
  const directory = mkdtempSync(join(tmpdir(), "storefront-test-"));
  const pglite = createPglite();
  const database = wrapPglite(pglite);
  await prepareDatabase(database.db);
  const dump = await pglite.dumpDataDir("gzip");
  await database.close();
  const dumpPath = join(directory, "pglite.tar.gz");
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteDumpPath", dumpPath);
  const schemaPrefix = `test_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}_`;
  project.provide("testSchemaPrefix", schemaPrefix);
  await installExtensions();
  return async () => {
    rmSync(directory, { recursive: true, force: true });
    await dropSchemas(schemaPrefix);
  };
}

/**
 * Extensions belong to a database, not a schema: one created by the first test schema's migration would live in that
 * schema, invisible to the others and dropped with it. They are installed once in public, which every test schema
 * keeps on its search_path (client.ts), and the migrations then find them there.
 */
async function installExtensions(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Serialised: two test runs starting together would otherwise both try to create it.
    await client.query("select pg_advisory_lock(hashtext('storefront test extensions'))");
    await client.query("create extension if not exists pg_trgm schema public");
  } finally {
    await client.end();
  }
}

/**
 * The run's PostgreSQL schemas are dropped here, once every test file is done, not as each file ends: a schema
 * dropped while another file's migrator scans the catalogue made that scan fail ("schema … does not exist").
 */
async function dropSchemas(prefix: string): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where starts_with(nspname, $1)",
      [prefix],
    );
    for (const { nspname } of rows) await client.query(`drop schema "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}
