// An order's returns so far, newest first, with their status and what they hold.

import { Link } from "react-router";
import { formatCents } from "#shared/money";
import type { ReturnResolution } from "#shared/returns";

export interface ShopperReturnRow {
  number: string;
  statusLabel: string;
  refundCents: number | null;
  declineMessage: string | null;
  /** The $0.00 order sent in its place, once made, and the path of its page. */
  replacementOrder: { number: string; path: string } | null;
  lines: { title: string; quantity: number; reason: string; resolution: ReturnResolution }[];
}

/** The order's returns so far, newest first: their status and what they hold. */
export function ReturnsList({ returns }: { returns: ShopperReturnRow[] }) {
  return (
    <section className="order-page__section" aria-labelledby="order-returns-heading">
      <h2 id="order-returns-heading">Your returns</h2>
      <ul className="order-page__returns">
        {returns.map((made) => (
          <li key={made.number} data-testid="order-return">
            <strong>{`Return ${made.number}: ${made.statusLabel}`}</strong>
            <ul>
              {made.lines.map((line, index) => (
                <li key={index}>
                  {`${line.quantity} × ${line.title} (${line.reason}, ${line.resolution === "replace" ? "replacement" : "refund"})`}
                </li>
              ))}
            </ul>
            {made.refundCents !== null && made.refundCents > 0 ? (
              <p>{`Refund: ${formatCents(made.refundCents)}`}</p>
            ) : null}
            {made.replacementOrder ? (
              <p>
                {"Replacement: "}
                <Link to={made.replacementOrder.path}>{`Order ${made.replacementOrder.number}`}</Link>
              </p>
            ) : null}
            {made.declineMessage ? <p>{made.declineMessage}</p> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
