// Test databases: a fresh PGlite, or a PostgreSQL schema per file when TEST_DATABASE_URL is set, so every test runs on
// both.

import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, inject, onTestFinished } from "vitest";
import pg from "pg";
import { createPglite, openDatabase, wrapPglite, type DatabaseHandle } from "#server/db/client";
import { prepareDatabase } from "#server/services";

/** An empty PGlite, without the shop's tables, closed when the test ends: for tests of the database layer itself. */
export function openBarePglite(): DatabaseHandle {
  const handle = wrapPglite(createPglite());
  onTestFinished(() => handle.close());
  return handle;
}

/** The databases every integration test runs against: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const testDatabaseKinds: DatabaseHandle["kind"][] = process.env.TEST_DATABASE_URL
  ? ["pglite", "postgres"]
  : ["pglite"];

/**
 * A new PostgreSQL schema name for this test run. The run's schemas are dropped together when it ends
 * (global-setup.ts), never while other test files may be migrating.
 */
export function testSchemaName(label = "db"): string {
  return `${inject("testSchemaPrefix")}${label}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

/**
 * Two connection pools on one new schema of TEST_DATABASE_URL's PostgreSQL, as two instances of the shop open it, for
 * `run`; both closed however it ends (the schema goes with the run's others, global-setup.ts).
 */
export async function withTwoInstances<T>(
  label: string,
  run: (databases: readonly [DatabaseHandle, DatabaseHandle]) => Promise<T>,
): Promise<T> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("two instances need TEST_DATABASE_URL");
  const schema = testSchemaName(label);
  await runAdminQuery(url, `create schema ${schema}`);
  const databases = [
    openDatabase({ kind: "postgres", url, schema }),
    openDatabase({ kind: "postgres", url, schema }),
  ] as const;
  try {
    return await run(databases);
  } finally {
    await Promise.all(databases.map((database) => database.close()));
  }
}

/**
 * Opens a fresh, migrated and seeded database of the given kind for one test file. PostgreSQL gets a schema of
 * its own, so that test files and concurrent runs never see each other's rows.
 */
export async function openTestDatabase(kind: DatabaseHandle["kind"]): Promise<DatabaseHandle> {
  if (kind === "pglite") {
    const dump = new Blob([readFileSync(inject("pgliteDumpPath"))]);
    return openDatabase({ kind: "pglite", loadDataDir: dump });
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set");
  const schema = testSchemaName();
  await runAdminQuery(url, `create schema ${schema}`);
  const handle = openDatabase({ kind: "postgres", url, schema, poolSize: 20 });
  await prepareDatabase(handle.db);
  return handle;
}

async function runAdminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Runs a block of tests once per test database, with a database opened before and closed after.
 * `getDatabase()` returns the open handle inside tests.
 */
export function describeEachDatabase(name: string, body: (getDatabase: () => DatabaseHandle) => void): void {
  for (const kind of testDatabaseKinds) {
    describe(`${name} [${kind}]`, () => {
      let handle: DatabaseHandle | undefined;
      beforeAll(async () => {
        handle = await openTestDatabase(kind);
      });
      afterAll(async () => {
        if (!handle) return;
        try {
          await expectEveryOrderToMatchItsLines(handle);
        } finally {
          await handle.close();
        }
      });
      body(() => {
        if (!handle) throw new Error("test database is not open yet");
        return handle;
      });
    });
  }
}

/**
 * The invariant every order keeps, checked over every order each integration test file leaves behind: its total is
 * the sum of its lines (price times quantity; a line without a quantity is one item), less its discount, plus its
 * shipping and tax as its recorded breakdown says (orders from before delivery options and tax have none), and the
 * breakdown's own items and total are the lines' and the amount charged. A file whose tests created one that is not
 * fails in its teardown, naming the orders.
 */
export async function expectEveryOrderToMatchItsLines(handle: DatabaseHandle): Promise<void> {
  const { rows } = await sql<{ id: string; amount_cents: number; lines_cents: number }>`
    select id, amount_cents, lines_cents from (
      select id, amount_cents, pricing,
        (select coalesce(sum((line->>'priceCents')::int * coalesce((line->>'quantity')::int, 1)), 0) from jsonb_array_elements(items) as line)::int as lines_cents
      from orders
    ) as totals
    where amount_cents <> lines_cents - coalesce((pricing->>'discountCents')::int, 0) + coalesce((pricing->>'shippingCents')::int, 0) + coalesce((pricing->>'taxCents')::int, 0)
      or (pricing is not null and ((pricing->>'itemsCents')::int <> lines_cents or (pricing->>'totalCents')::int <> amount_cents))`.execute(
    handle.db,
  );
  if (rows.length > 0) {
    const listed = rows.slice(0, 5).map((row) => `${row.id}: total ${row.amount_cents}, lines ${row.lines_cents}`);
    throw new Error(`${rows.length} order(s) whose total is not the sum of their lines: ${listed.join("; ")}`);
  }
}
