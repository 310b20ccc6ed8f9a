// /admin/outbox: the e-mails the shop wrote, newest first, with their delivery state.

import { Link } from "react-router";
import type { Route } from "./+types/outbox";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { formatConsoleTime, requireConsole } from "./require-operator";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/outbox");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const before = new URL(request.url).searchParams.get("before");
  const page = await services.email.listOutbox({ before: before && before.length <= 200 ? before : null, limit: 50 });
  return {
    isFirstPage: !before,
    next: page.next,
    entries: page.entries.map((entry) => ({
      id: entry.id,
      createdAt: formatConsoleTime(new Date(entry.createdAt), timeZone),
      kind: entry.kind,
      recipient: entry.recipient,
      subject: entry.subject,
      status: entry.status,
      attempts: entry.attempts,
      sentAt: entry.sentAt ? formatConsoleTime(new Date(entry.sentAt), timeZone) : "",
      lastError: entry.lastError ?? "",
    })),
  };
}

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { entries, next, isFirstPage } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Outbox | Console</title>
      <PageHeader title="Outbox">
        <p>
          The e-mails the shop wrote, newest first: sent, waiting, being retried or given up. Open one to read it as it
          was sent.
        </p>
      </PageHeader>
      {entries.length === 0 ? (
        <p>Nothing yet.</p>
      ) : (
        <table className="console-table" tabIndex={0}>
          <thead>
            <tr>
              <th scope="col">Written</th>
              <th scope="col">Kind</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col">State</th>
              <th scope="col" className="console-number">
                Attempts
              </th>
              <th scope="col">Sent</th>
              <th scope="col">Last error</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.createdAt}</td>
                <td>{entry.kind}</td>
                <td>{entry.recipient}</td>
                <td>
                  <Link to={`/admin/outbox/${entry.id}`}>{entry.subject}</Link>
                </td>
                <td>
                  <StatusBadge status={entry.status} />
                </td>
                <td className="console-number">{entry.attempts}</td>
                <td>{entry.sentAt}</td>
                <td>{entry.lastError}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="console-pages" aria-label="Pages">
        {isFirstPage ? null : <Link to="/admin/outbox">Newest</Link>}
        {next ? <Link to={`/admin/outbox?before=${encodeURIComponent(next)}`}>Older e-mails</Link> : null}
      </nav>
    </main>
  );
}
