// The basket's subtotal and the way on to payment.

import type { ReactNode } from "react";
import { Link } from "react-router";
import { formatCents } from "#shared/money";

/** "Subtotal (N items): $total" and the way on to payment (no gift checkbox: docs/decisions/028-no-gift-option.md). */
export function SubtotalPanel({
  count,
  subtotalCents,
  isBlocked = false,
  children,
}: {
  count: number;
  subtotalCents: number;
  isBlocked?: boolean;
  /** What else the panel offers under the way on (a signed-in shopper's basket reminders). */
  children?: ReactNode;
}) {
  return (
    <section className="subtotal" aria-labelledby="subtotal-heading">
      <h2 id="subtotal-heading" className="visually-hidden">
        Basket subtotal
      </h2>
      <p className="subtotal__line" data-testid="subtotal">
        Subtotal ({count} {count === 1 ? "item" : "items"}): <strong>{formatCents(subtotalCents)}</strong>
      </p>
      {/* A line out of stock must go first: the way on is shown, but not followed. */}
      {isBlocked ? (
        <span className="button subtotal__proceed" role="link" aria-disabled="true">
          Proceed to Checkout
        </span>
      ) : (
        <Link to="/payment" className="button subtotal__proceed">
          Proceed to Checkout
        </Link>
      )}
      {children}
    </section>
  );
}
