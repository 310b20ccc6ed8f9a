import { sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from "kysely";
import { Migrator, type MigrationProvider } from "kysely/migration";

export interface SchemaMigration {
  provider: MigrationProvider;
  /** The history's tables; Kysely's defaults (`kysely_migration`, `kysely_migration_lock`) unless named. */
  migrationTableName?: string;
  migrationLockTableName?: string;
  /** Starts the error thrown when a migration fails, e.g. "Database migration failed". */
  failure: string;
}

/**
 * Brings the tables of the connection's current schema up to date with Kysely's migrator, which holds a PostgreSQL
 * advisory lock for the run so that instances starting together apply each migration once.
 *
 * The migrator asks whether its history table exists through Kysely's introspector, which reads every column of
 * every table in the whole database and resolves each table by name (pg_get_serial_sequence): a schema dropped by
 * another user of the database meanwhile fails that query with "relation … does not exist". The migrator here sees
 * an introspector that lists the current schema's tables alone, by catalogue row, which nothing elsewhere can break.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before any typed schema exists
export async function migrateCurrentSchema(db: Kysely<any>, options: SchemaMigration): Promise<void> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema ?? "public";
  const migrator = new Migrator({
    db: withIntrospectionOf(db, schema),
    provider: options.provider,
    migrationTableName: options.migrationTableName,
    migrationLockTableName: options.migrationLockTableName,
    // Named, or Kysely would take a history table in any schema of the database as this one's.
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === "Error");
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : "";
    throw new Error(`${options.failure}${name}`, { cause: error });
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
function withIntrospectionOf(db: Kysely<any>, schema: string): Kysely<any> {
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: () => tablesOf(db, schema),
  };
  // Kysely keeps its state in private fields, so its methods must run on the instance itself, not on the proxy.
  return new Proxy(db, {
    get(target, property) {
      if (property === "introspection") return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
async function tablesOf(db: Kysely<any>, schema: string): Promise<TableMetadata[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p')`.execute(db);
  return rows.map(({ name }) => ({ name, schema, isView: false, isForeign: false, columns: [] }));
}
