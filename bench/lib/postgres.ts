import { randomBytes } from "node:crypto";
import pg from "pg";

/** Whether a PostgreSQL server answers at `url` within `timeoutMs`. */
export async function postgresAnswers(url: string, timeoutMs = 3_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TemporaryDatabase {
  name: string;
  /** The same server as the admin URL, on the new database. */
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh, empty database on the server of `adminUrl`, named bench_<time>_<random> so that concurrent
 * runs never share one. The caller must `drop()` it (run.ts registers that as a cleanup step).
 */
export async function createTemporaryDatabase(adminUrl: string): Promise<TemporaryDatabase> {
  const name = `bench_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withAdmin(adminUrl, async (client) => {
        try {
          // FORCE (PostgreSQL 13+) ends sessions a killed server may have left behind.
          await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        } catch {
          await client.query(`DROP DATABASE IF EXISTS "${name}"`);
        }
      }),
  };
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, for logs and reports. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}
