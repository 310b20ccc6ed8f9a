// The audit log: every operator change recorded in its own transaction (only the values that changed), and the
// console's newest-first pages of it.

import type { Transaction } from "kysely";
import type { DB } from "#server/db/client";
import type { Database } from "#server/db/schema";
import { keysetById } from "#server/db/keyset-cursor";

/** Who did something in the console: an operator, or start-up itself (OPERATOR_EMAIL). */
export interface Actor {
  id: string | null;
  email: string;
}

/** Start-up's own actions (the operator named by OPERATOR_EMAIL), which no signed-in operator made. */
export const STARTUP_ACTOR: Actor = { id: null, email: "start-up (OPERATOR_EMAIL)" };

export interface AuditEntry {
  id: string;
  operatorEmail: string;
  action: string;
  subject: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: Date;
}

export const AUDIT_PAGE_SIZE = 50;

/**
 * Writes one entry inside the change's own transaction, so an entry exists exactly when the change does. Only the
 * values that changed are kept (both sides), which is what a reader of the log wants to see.
 */
export async function recordAudit(
  trx: Transaction<Database> | DB,
  actor: Actor,
  entry: {
    action: string;
    subject: string;
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  },
): Promise<void> {
  const [before, after] = changedValues(entry.before, entry.after);
  await trx
    .insertInto("audit_log")
    .values({
      operator_id: actor.id,
      operator_email: actor.email,
      action: entry.action,
      subject: entry.subject,
      before: before === null ? null : JSON.stringify(before),
      after: after === null ? null : JSON.stringify(after),
    })
    .execute();
}

/** The fields whose values differ, on both sides; a creation or a deletion keeps its whole side. */
function changedValues(before: Record<string, unknown> | null, after: Record<string, unknown> | null) {
  if (!before || !after) return [before, after] as const;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
  return [
    Object.fromEntries(keys.map((key) => [key, before[key] ?? null])),
    Object.fromEntries(keys.map((key) => [key, after[key] ?? null])),
  ] as const;
}

const auditCursor = keysetById();

export function createAuditLog(db: DB) {
  return {
    /**
     * Newest first, a page at a time by the keyset helper, on the id alone (a bigint identity: a newer entry has a
     * larger id, and one change's entries share their created_at): `after` is the cursor of the previous page's link.
     */
    async listEntries({ after }: { after?: string | null } = {}): Promise<{
      entries: AuditEntry[];
      next: string | null;
      isFirstPage: boolean;
    }> {
      const query = db
        .selectFrom("audit_log")
        .select(["id", "operator_email", "action", "subject", "before", "after", "created_at"]);
      const page = await auditCursor.readPage(query, {
        after,
        pageSize: AUDIT_PAGE_SIZE,
        id: "id",
        idOf: (row) => String(row.id),
      });
      return {
        entries: page.rows.map((row) => ({
          id: String(row.id),
          operatorEmail: row.operator_email,
          action: row.action,
          subject: row.subject,
          before: row.before,
          after: row.after,
          createdAt: row.created_at,
        })),
        next: page.next,
        isFirstPage: page.isFirstPage,
      };
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
