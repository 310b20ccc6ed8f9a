// The audit log's page body: every operator action as a row (when, who, what, to what, and each changed value before
// and after), and the links between its pages.

import { Link } from "react-router";

/** One entry, as the loader words it. */
export interface AuditRow {
  id: string;
  at: string;
  who: string;
  action: string;
  subject: string;
  changes: string[];
}

/** The entries' table, or "Nothing yet." */
export function AuditEntries({ entries }: { entries: AuditRow[] }) {
  return entries.length === 0 ? (
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
        {entries.map((entry) => (
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
  );
}

/** "Newest" back to page one, "Older" past the last entry shown. */
export function AuditPages({ isFirstPage, next }: { isFirstPage: boolean; next: string | null }) {
  return (
    <nav className="console-pages" aria-label="Pages">
      {!isFirstPage ? <Link to="/admin/audit">Newest</Link> : null}
      {next ? <Link to={`/admin/audit?after=${next}`}>Older</Link> : null}
    </nav>
  );
}
