import { PGlite } from "@electric-sql/pglite";
import { Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { migrateProcessor } from "../src/migrate.ts";
import type { ProcessorDB } from "../src/processor-tables.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Every PostgreSQL schema the processor's tests create starts with it; global-setup.ts drops them at the end. */
    processorTestSchemaPrefix: string;
  }
}

export interface ProcessorTestDatabase {
  db: ProcessorDB;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
}

const kinds: ProcessorTestDatabase["kind"][] = process.env.TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/** A fresh database holding only the processor's tables: PGlite in memory, or a PostgreSQL schema of its own. */
export async function openProcessorTestDatabase(kind: ProcessorTestDatabase["kind"]): Promise<ProcessorTestDatabase> {
  let db: ProcessorDB;
  if (kind === "pglite") {
    db = new Kysely({ dialect: new PGliteDialect({ pglite: new PGlite() }) });
  } else {
    const url = process.env.TEST_DATABASE_URL ?? "";
    const schema = `${inject("processorTestSchemaPrefix")}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`).finally(() => admin.end());
    db = new Kysely({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` }),
      }),
    });
  }
  await migrateProcessor(db);
  return { db, kind, close: () => db.destroy() };
}

/** Runs a block of tests once per test database (PGlite; PostgreSQL too when TEST_DATABASE_URL is set). */
export function describeEachDatabase(name: string, body: (getDatabase: () => ProcessorTestDatabase) => void): void {
  for (const kind of kinds) {
    describe(`${name} [${kind}]`, () => {
      let database: ProcessorTestDatabase | undefined;
      beforeAll(async () => {
        database = await openProcessorTestDatabase(kind);
      });
      afterAll(async () => {
        await database?.close();
      });
      body(() => {
        if (!database) throw new Error("test database is not open yet");
        return database;
      });
    });
  }
}
