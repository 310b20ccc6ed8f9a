import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDatabase } from "#server/testing/test-database";
import { AUDIT_PAGE_SIZE, createAuditLog, recordAudit } from "./audit-log";

describeEachDatabase("the audit log's pages", (getDatabase) => {
  it("pages newest first, every entry once, even when a whole page's entries share one moment", async () => {
    const { db } = getDatabase();
    const subjects = Array.from({ length: AUDIT_PAGE_SIZE + 5 }, (_, index) => `paging-${index}`);
    // One transaction: every entry has the same created_at, so the id alone orders them.
    await db.transaction().execute(async (trx) => {
      for (const subject of subjects)
        await recordAudit(
          trx,
          { id: null, email: "pager@example.com" },
          { action: "test.page", subject, before: null, after: null },
        );
    });
    const auditLog = createAuditLog(db);
    const first = await auditLog.listEntries();
    expect(first.entries).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.entries[0]?.subject).toBe(subjects.at(-1));
    expect(first.next).not.toBeNull();
    expect(first.isFirstPage).toBe(true);
    const second = await auditLog.listEntries({ after: first.next });
    expect(second.isFirstPage).toBe(false);
    const seen = [...first.entries, ...second.entries].filter((entry) => entry.action === "test.page");
    expect(seen.map((entry) => entry.subject)).toEqual([...subjects].reverse());
  });

  it("lists every entry once when a page ends inside a millisecond (PostgreSQL keeps microseconds, a Date does not)", async () => {
    const { db } = getDatabase();
    // Written one by one, each a microsecond after the last: all within one millisecond, as busy writers' entries are.
    const subjects = Array.from({ length: AUDIT_PAGE_SIZE + 5 }, (_, index) => `microsecond-${index}`);
    for (const [index, subject] of subjects.entries())
      await sql`insert into audit_log (operator_email, action, subject, created_at)
        values ('pager@example.com', 'test.microseconds', ${subject},
                timestamptz '2026-11-29 10:00:00.000000+00' + ${`${index + 1} microseconds`}::interval)`.execute(db);
    const auditLog = createAuditLog(db);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof auditLog.listEntries>> = await auditLog.listEntries({ after });
      seen.push(...page.entries.filter((entry) => entry.action === "test.microseconds").map((entry) => entry.subject));
      after = page.next;
    } while (after);
    expect(seen).toEqual([...subjects].reverse());
  });

  it("reads a cursor that is no id of the log as page one, never as a database error", async () => {
    const auditLog = createAuditLog(getDatabase().db);
    for (const after of ["abc", "-1", "99999999999999999999", "9223372036854775808", "1~2"]) {
      const page = await auditLog.listEntries({ after });
      expect(page.isFirstPage).toBe(true);
    }
  });
});
