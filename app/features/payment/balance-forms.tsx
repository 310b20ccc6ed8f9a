// The payment page's "Use store credit" and a balance's "Remove".

import { useFetcher } from "react-router";
import { formatCents } from "#shared/money";

/** What the payment page's action answers to "Use store credit" and a balance's "Remove". */
export type BalanceActionData = { balance: { ok: true } | { ok: false; error: string } };

/**
 * "Use store credit ($x)" on /payment, for an account with store credit not yet applied: a plain form post to the
 * payment page's action (sent by a fetcher once the page runs its JavaScript). Applied, its line is in the totals
 * ("Store credit: -$x") with "Remove" (RemoveBalanceButton).
 */
export function StoreCreditForm({ availableCents, isApplied }: { availableCents: number; isApplied: boolean }) {
  const fetcher = useFetcher<BalanceActionData>();
  const refusal = fetcher.data && !fetcher.data.balance.ok ? fetcher.data.balance.error : null;
  return (
    <div className="store-credit" data-testid="store-credit">
      {isApplied ? null : (
        <fetcher.Form method="post" preventScrollReset>
          <input type="hidden" name="intent" value="use-store-credit" />
          <button type="submit" className="button" disabled={fetcher.state !== "idle"}>
            Use store credit ({formatCents(availableCents)})
          </button>
        </fetcher.Form>
      )}
      {refusal ? (
        <p role="alert" className="payment__error">
          {refusal}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The form every balance's "Remove" sends (a gift card's as well as store credit's, whether or not the shopper has
 * store credit): its buttons are the totals' (RemoveBalanceButton), which sit in the payment's own form.
 */
export function RemoveBalanceForm() {
  const fetcher = useFetcher<BalanceActionData>();
  const refusal = fetcher.data && !fetcher.data.balance.ok ? fetcher.data.balance.error : null;
  return (
    <>
      <fetcher.Form id={REMOVE_BALANCE_FORM} method="post" preventScrollReset hidden>
        <input type="hidden" name="intent" value="remove-balance" />
      </fetcher.Form>
      {refusal ? (
        <p role="alert" className="payment__error">
          {refusal}
        </p>
      ) : null}
    </>
  );
}

/** "Remove", beside a balance's line in the totals: takes that balance off this checkout. */
export function RemoveBalanceButton({ accountId }: { accountId: string }) {
  return (
    <button type="submit" form={REMOVE_BALANCE_FORM} name="account" value={accountId} className="order-totals__remove">
      Remove
    </button>
  );
}

const REMOVE_BALANCE_FORM = "remove-balance";
