// /admin/audit: every operator action, newest first, a page at a time.

import type { Route } from "./+types/audit";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";
import { AuditEntries, AuditPages } from "#app/features/admin/audit/audit-entries";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/audit");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  // The page's cursor is read by the keyset helper: anything that is not one of the log's ids is page one.
  const { entries, next, isFirstPage } = await services.auditLog.listEntries({
    after: new URL(request.url).searchParams.get("after"),
  });
  return {
    next,
    isFirstPage,
    entries: entries.map((entry) => ({
      id: entry.id,
      at: formatConsoleTime(entry.createdAt, timeZone),
      who: entry.operatorEmail,
      action: entry.action,
      subject: entry.subject,
      changes: describeChanges(entry.before, entry.after),
    })),
  };
}

/** One line per changed value: "price_cents: 1299 → 1499". Long values (descriptions) are cut for the table. */
function describeChanges(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const show = (value: unknown) => {
    const text = value === undefined ? "–" : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}…` : text;
  };
  return keys.map((key) =>
    before ? `${key}: ${show(before[key])} → ${show(after?.[key])}` : `${key}: ${show(after?.[key])}`,
  );
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  return (
    <main id="main" className="console-main">
      <title>Audit log | Console</title>
      <PageHeader title="Audit log" />
      <p>Every operator action, newest first. Entries are kept.</p>
      <AuditEntries entries={loaderData.entries} />
      <AuditPages isFirstPage={loaderData.isFirstPage} next={loaderData.next} />
    </main>
  );
}
