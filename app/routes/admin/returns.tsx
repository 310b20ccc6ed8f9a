// /admin/returns: returns, or EU withdrawals apart, by status.

import type { Route } from "./+types/returns";
import { formatCents } from "#shared/money";
import { RETURN_STATUS_LABELS, type ReturnKind } from "#shared/returns";
import { PageHeader } from "#app/features/admin/console-ui";
import { ReturnKindSwitch, ReturnsTable } from "#app/features/admin/returns/returns-table";
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
      <ReturnKindSwitch kind={kind} />
      <ReturnsTable returns={returns} kind={kind} title={title} />
    </main>
  );
}
