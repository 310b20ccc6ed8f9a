// Needs attention's returns and withdrawals waiting on the shop for more than 3 days, each a link to its page.

import { Link } from "react-router";

export interface WaitingReturnRow {
  number: string;
  status: string;
  requestedAt: string;
  email: string;
}

/** Needs attention's returns (or withdrawals, apart) waiting on the shop for more than 3 days. */
export function WaitingReturns({ rows, kind }: { rows: WaitingReturnRow[]; kind: "return" | "withdrawal" }) {
  const heading = kind === "withdrawal" ? "Withdrawals waiting over 3 days" : "Returns waiting over 3 days";
  const id = `waiting-${kind}s-heading`;
  return (
    <>
      <h2 id={id}>{heading}</h2>
      {rows.length === 0 ? (
        <p className="console-count">{kind === "withdrawal" ? "No withdrawal is waiting." : "No return is waiting."}</p>
      ) : (
        <table className="console-table" tabIndex={0} aria-labelledby={id}>
          <thead>
            <tr>
              <th scope="col">{kind === "withdrawal" ? "Withdrawal" : "Return"}</th>
              <th scope="col">Waiting for</th>
              <th scope="col">Requested</th>
              <th scope="col">E-mail</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.number} data-testid="waiting-return">
                <td>
                  <Link to={`/admin/returns/${row.number}`}>{row.number}</Link>
                </td>
                <td>{row.status === "Requested" ? "A decision" : "The parcel"}</td>
                <td>{row.requestedAt}</td>
                <td>{row.email}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
