// The console's outbox as a table, newest first: each e-mail's kind, recipient, subject (a link to it), delivery
// state, attempts, when sent and its last error; and the links between its pages.

import { Link } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";

/** An e-mail of the outbox as the loader words it. */
export interface OutboxRow {
  id: string;
  createdAt: string;
  kind: string;
  recipient: string;
  subject: string;
  status: string;
  attempts: number;
  sentAt: string;
  lastError: string;
}

/** The table, or "Nothing yet." */
export function OutboxTable({ entries }: { entries: OutboxRow[] }) {
  return entries.length === 0 ? (
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
  );
}

/** "Newest" back to the first page, "Older e-mails" past the last one shown. */
export function OutboxPages({ isFirstPage, next }: { isFirstPage: boolean; next: string | null }) {
  return (
    <nav className="console-pages" aria-label="Pages">
      {isFirstPage ? null : <Link to="/admin/outbox">Newest</Link>}
      {next ? <Link to={`/admin/outbox?before=${encodeURIComponent(next)}`}>Older e-mails</Link> : null}
    </nav>
  );
}
