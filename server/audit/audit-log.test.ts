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
    expect(first.nextBefore).not.toBeNull();
    const second = await auditLog.listEntries({ before: first.nextBefore ?? undefined });
    const seen = [...first.entries, ...second.entries].filter((entry) => entry.action === "test.page");
    expect(seen.map((entry) => entry.subject)).toEqual([...subjects].reverse());
  });
});
