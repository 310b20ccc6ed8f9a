// /admin/returns: returns, or EU withdrawals apart, by status.

import { Link } from "react-router";
import type { Route } from "./+types/returns";
import { formatCents } from "#shared/money";
import { RETURN_KIND_LABELS, RETURN_STATUS_LABELS, type ReturnKind } from "#shared/returns";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { formatConsoleTime, requireConsole } from "./require-operator";

/** Which list: returns (the default) or the EU withdrawals apart (`?kind=withdrawal`). */
function kindOf(request: Request): ReturnKind {
  return new URL(request.url).searchParams.get("kind") === "withdrawal" ? "withdrawal" : "return";
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/returns");
  const timeZone = await services.settings.timeZone();
  const kind = kindOf(request);
  const rows = await services.returns.listReturns({ kind });
  return {
    kind,
    returns: rows.map((row) => ({
      number: row.number,
      orderNumber: row.orderNumber,
      status: { key: row.status, label: RETURN_STATUS_LABELS[row.status] },
      requestedAt: formatConsoleTime(row.createdAt, timeZone),
      units: row.units,
      refund: row.refundCents === null ? "–" : formatCents(row.refundCents),
      email: row.contactEmail ?? "–",
      needsAttention: row.needsAttention,
    })),
  };
}

/** Every return, Requested first: the queue an operator works through. */
export default function AdminReturns({ loaderData }: Route.ComponentProps) {
  const { kind, returns } = loaderData;
  const title = kind === "withdrawal" ? "Withdrawals" : "Returns";
  return (
    <main id="main" className="console-main">
      <title>{`${title} | Console`}</title>
      <PageHeader title={title} />
      <nav className="console-filters" aria-label="Returns or withdrawals">
        <Link to="/admin/returns" aria-current={kind === "return" ? "page" : undefined}>
          {`${RETURN_KIND_LABELS.return}s`}
        </Link>{" "}
        ·{" "}
        <Link to="/admin/returns?kind=withdrawal" aria-current={kind === "withdrawal" ? "page" : undefined}>
          {`${RETURN_KIND_LABELS.withdrawal}s`}
        </Link>
      </nav>
      {returns.length === 0 ? (
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
      )}
    </main>
  );
}
