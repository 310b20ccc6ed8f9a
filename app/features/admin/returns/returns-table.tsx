// The console's returns list: the switch between returns and EU withdrawals, and the table of either, each row with
// its status (and whether it has waited on the shop over 3 days), order, items and refund.

import { Link } from "react-router";
import { RETURN_KIND_LABELS } from "#shared/returns";
import { StatusBadge } from "#app/features/admin/console-ui";

/** A return as the loader words it. */
export interface ReturnRow {
  number: string;
  status: { key: string; label: string };
  needsAttention: boolean;
  orderNumber: string;
  requestedAt: string;
  units: number;
  refund: string;
  email: string;
}

/** "Returns · Withdrawals", the list shown marked. */
export function ReturnKindSwitch({ kind }: { kind: "return" | "withdrawal" }) {
  return (
    <nav className="console-filters" aria-label="Returns or withdrawals">
      <Link to="/admin/returns" aria-current={kind === "return" ? "page" : undefined}>
        {`${RETURN_KIND_LABELS.return}s`}
      </Link>{" "}
      ·{" "}
      <Link to="/admin/returns?kind=withdrawal" aria-current={kind === "withdrawal" ? "page" : undefined}>
        {`${RETURN_KIND_LABELS.withdrawal}s`}
      </Link>
    </nav>
  );
}

/** The table of returns or withdrawals, or that there are none yet. */
export function ReturnsTable({
  returns,
  kind,
  title,
}: {
  returns: ReturnRow[];
  kind: "return" | "withdrawal";
  title: string;
}) {
  return returns.length === 0 ? (
    <p>{kind === "withdrawal" ? "No withdrawals yet." : "No returns yet."}</p>
  ) : (
    <table className="console-table" tabIndex={0}>
      <caption className="visually-hidden">{title}, Requested first</caption>
      <thead>
        <tr>
          <th scope="col">Return</th>
          <th scope="col">Status</th>
          <th scope="col">Order</th>
          <th scope="col">Requested</th>
          <th scope="col" className="console-number">
            Items
          </th>
          <th scope="col" className="console-number">
            Refund
          </th>
          <th scope="col">E-mail</th>
        </tr>
      </thead>
      <tbody>
        {returns.map((row) => (
          <tr key={row.number} data-testid="return-row">
            <td>
              <Link to={`/admin/returns/${row.number}`}>{row.number}</Link>
            </td>
            <td>
              <StatusBadge status={row.status.key} label={row.status.label} />
              {row.needsAttention ? " Waiting over 3 days" : ""}
            </td>
            <td>
              <Link to={`/admin/orders/${row.orderNumber}`}>{row.orderNumber}</Link>
            </td>
            <td>{row.requestedAt}</td>
            <td className="console-number">{row.units}</td>
            <td className="console-number">{row.refund}</td>
            <td>{row.email}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
