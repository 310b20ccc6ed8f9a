import { sql, type Kysely } from "kysely";

/**
 * The audit log's pages go newest first by (created_at, id), as every other list of the console does, through the
 * one keyset helper (server/db/keyset-cursor.ts): this index lets a page be read from where the previous one ended.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index audit_log_created on audit_log (created_at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index audit_log_created`.execute(db);
}
