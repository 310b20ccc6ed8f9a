// What the console's return page says of a return: its status, order, shopper, the withdrawal that opened it, the
// decision, the fee and the refund, and the replacement order it made.

import { Link } from "react-router";
import { StatusBadge } from "#app/features/admin/console-ui";

/** The console's return page, as its loader shapes it. */
export interface ConsoleReturn {
  number: string;
  kind: string;
  status: { key: string; label: string };
  orderNumber: string;
  email: string;
  requestedAt: string;
  withdrawal: { receivedAt: string; by: string } | null;
  decision: string | null;
  fee: string;
  figure: string;
  refund: string;
  refunded: string | null;
  replacementOrderNumber: string | null;
  canApprove: boolean;
  canDecline: boolean;
  canCancel: boolean;
  canReceive: boolean;
  canRefund: boolean;
  canReplace: boolean;
  lines: {
    index: number;
    title: string;
    quantity: number;
    reason: string;
    resolution: string;
    received: number | null;
    damaged: number | null;
  }[];
}

/** The return's facts, each with its label. */
export function ReturnFacts({ found }: { found: ConsoleReturn }) {
  return (
    <dl className="console-facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={found.status.key} label={found.status.label} />
      </dd>
      <dt>Order</dt>
      <dd>
        <Link to={`/admin/orders/${found.orderNumber}`}>{found.orderNumber}</Link>
      </dd>
      <dt>E-mail</dt>
      <dd>{found.email}</dd>
      <dt>Requested</dt>
      <dd>{found.requestedAt}</dd>
      {found.withdrawal ? (
        <>
          <dt>Withdrawal received</dt>
          <dd>{`${found.withdrawal.receivedAt} from ${found.withdrawal.by}`}</dd>
        </>
      ) : null}
      {found.decision ? (
        <>
          <dt>Decided</dt>
          <dd>{found.decision}</dd>
        </>
      ) : null}
      <dt>Return fee</dt>
      <dd>{found.fee}</dd>
      <dt>Refund</dt>
      <dd data-testid="return-figure">{found.refunded ?? found.figure}</dd>
      {found.replacementOrderNumber ? (
        <>
          <dt>Replacement order</dt>
          <dd>
            <Link to={`/admin/orders/${found.replacementOrderNumber}`}>{found.replacementOrderNumber}</Link>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/**
 * The status the operator saw, sent with every form: a decision made meanwhile by somebody else is refused, not
 * taken twice.
 */
export function SeenStatus({ status }: { status: string }) {
  return <input type="hidden" name="seen" value={status} />;
}
