// An order's totals as the pricing function worked them out, in the order shoppers read them everywhere.

import type { ReactNode } from "react";
import { formatCents } from "#shared/money";
import { amountDue, balanceLabel, taxLabel, type PriceBreakdown } from "#shared/pricing";

/**
 * The totals as the pricing function worked them out, in the order a shopper reads them everywhere: "Items:",
 * "Shipping & handling:", "Promotion applied:" (only with a promotion), "Total before tax:", "Estimated tax to be
 * collected:" (each rate applied, when more than one), "Order Total:", then the balances that pay part of it
 * ("Store credit: -$20.00") and what is left for the card. Nothing here adds money up.
 */
export function OrderTotals({
  pricing,
  hasAddress = true,
  isFinal = false,
  promotionAction,
  balanceAction,
}: {
  pricing: PriceBreakdown;
  hasAddress?: boolean;
  isFinal?: boolean;
  /** Beside the promotion's line: the payment page's "Remove". */
  promotionAction?: ReactNode;
  /** Beside a balance's line ("Store credit: -$20.00"): the payment page's "Remove", by the balance's account. */
  balanceAction?: (accountId: string) => ReactNode;
}) {
  const balances = pricing.balances ?? [];
  const shipping =
    !hasAddress || pricing.isUndeliverable
      ? "—"
      : pricing.shippingCents === 0
        ? "FREE"
        : formatCents(pricing.shippingCents);
  return (
    <dl className="order-totals" data-testid="order-totals">
      <div>
        <dt>Items:</dt> <dd>{formatCents(pricing.itemsCents)}</dd>
      </div>
      <div>
        <dt>Shipping &amp; handling:</dt>{" "}
        <dd data-testid="shipping-total">
          {shipping}
          {pricing.shipping && hasAddress ? (
            <span className="order-totals__note"> ({pricing.shipping.name})</span>
          ) : null}
        </dd>
      </div>
      {pricing.promotion ? (
        <div>
          <dt>Promotion applied:</dt>{" "}
          <dd>
            {pricing.promotion.code} -{formatCents(pricing.discountCents)}
            {promotionAction ? <> {promotionAction}</> : null}
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Total before tax:</dt> <dd>{formatCents(pricing.totalBeforeTaxCents)}</dd>
      </div>
      <div>
        <dt>{isFinal ? "Tax:" : "Estimated tax to be collected:"}</dt>{" "}
        <dd data-testid="tax-total">{formatCents(pricing.taxCents)}</dd>
      </div>
      {pricing.taxes.length > 0 ? (
        <div className="order-totals__rates">
          <dt className="visually-hidden">Tax rates applied</dt>{" "}
          <dd>
            {pricing.taxes.map((tax) => (
              <span key={tax.rateId}>
                {taxLabel(tax)}: {formatCents(tax.amountCents)}
              </span>
            ))}
          </dd>
        </div>
      ) : null}
      <div className="order-totals__total" data-testid="order-total">
        <dt>Order Total:</dt>{" "}
        <dd>
          <strong>{formatCents(pricing.totalCents)}</strong>
        </dd>
      </div>
      {balances.map((balance) => (
        <div key={balance.accountId} data-testid="balance-applied">
          <dt>{balanceLabel(balance)}:</dt>{" "}
          <dd>
            -{formatCents(balance.amountCents)}
            {balanceAction ? <> {balanceAction(balance.accountId)}</> : null}
          </dd>
        </div>
      ))}
      {balances.length > 0 ? (
        <div className="order-totals__total" data-testid="amount-due">
          <dt>{isFinal ? "Paid by card:" : "To pay by card:"}</dt>{" "}
          <dd>
            <strong>{formatCents(amountDue(pricing))}</strong>
          </dd>
        </div>
      ) : null}
    </dl>
  );
}
