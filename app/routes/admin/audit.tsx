import { Link } from "react-router";
import type { Route } from "./+types/audit";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { PageHeader } from "#app/features/admin/console-ui";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/audit");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  // A cursor that does not read shows the first page, and says so.
  const { entries, nextBefore, isFirstPage } = await services.auditLog.listEntries({
    before: new URL(request.url).searchParams.get("before"),
  });
  return {
    nextBefore,
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
      {loaderData.entries.length === 0 ? (
        <p>Nothing yet.</p>
      ) : (
        <table className="console-table console-table--audit" tabIndex={0}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Subject</th>
              <th scope="col">Before → after</th>
            </tr>
          </thead>
          <tbody>
            {loaderData.entries.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.at}</td>
                <td>{entry.who}</td>
                <td>{entry.action}</td>
                <td>{entry.subject}</td>
                <td>
                  <ul className="console-changes">
                    {entry.changes.map((change) => (
                      <li key={change}>{change}</li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="console-pages" aria-label="Pages">
        {!loaderData.isFirstPage ? <Link to="/admin/audit">Newest</Link> : null}
        {loaderData.nextBefore ? (
          <Link to={`/admin/audit?before=${encodeURIComponent(loaderData.nextBefore)}`}>Older</Link>
        ) : null}
      </nav>
    </main>
  );
}
