import pg from "pg";
import type { TestProject } from "vitest/node";

/**
 * Gives the run's PostgreSQL schemas a common prefix and drops them once every test file is done (not as each file
 * ends: a schema dropped while another file's migrator reads the catalogue makes that read fail).
 */
export default function setup(project: TestProject) {
  const prefix = `processor_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}_`;
  project.provide("processorTestSchemaPrefix", prefix);
  return async () => {
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
  };
}
