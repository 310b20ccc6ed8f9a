// What "Needs attention" shows above its orders on the first page: payments held for review (each with its Refund,
// for a role that may) and the returns and withdrawals waiting on the shop for more than 3 days.

import { Form } from "react-router";
import { WaitingReturns, type WaitingReturnRow } from "./waiting-returns";

/** A payment held for review: paid, but not for the basket recorded, so without an order. */
export interface HeldPaymentRow {
  id: string;
  amount: string;
  heldAt: string;
  email: string;
  reason: string;
  isTest: boolean;
}

/** The held payments (the newest, with their count), the waiting returns and withdrawals, then the orders' heading. */
export function NeedsAttention({
  heldPayments,
  heldCount,
  waitingReturns,
  mayRefund,
  isBusy,
}: {
  heldPayments: HeldPaymentRow[];
  heldCount: number;
  waitingReturns: (WaitingReturnRow & { kind: string })[];
  mayRefund: boolean;
  isBusy: boolean;
}) {
  return (
    <section aria-labelledby="held-heading">
      <h2 id="held-heading">Payments held for review</h2>
      <p className="console-hint">Paid, but not for the basket recorded, so no order was made: refund each.</p>
      {heldPayments.length === 0 ? (
        <p className="console-count">No payment is held.</p>
      ) : (
        <table className="console-table" tabIndex={0} aria-labelledby="held-heading">
          <thead>
            <tr>
              <th scope="col">Held</th>
              <th scope="col" className="console-number">
                Amount
              </th>
              <th scope="col">E-mail</th>
              <th scope="col">Why</th>
              <th scope="col">Mode</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {heldPayments.map((payment) => (
              <tr key={payment.id}>
                <td>{payment.heldAt}</td>
                <td className="console-number">{payment.amount}</td>
                <td>{payment.email}</td>
                <td>{payment.reason}</td>
                <td>{payment.isTest ? <span className="console-test-badge">Test</span> : "Live"}</td>
                <td>
                  {mayRefund ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="refund-held-payment" />
                      <input type="hidden" name="payment" value={payment.id} />
                      <button
                        type="submit"
                        className="console-button"
                        disabled={isBusy}
                        aria-label={`Refund ${payment.amount} held ${payment.heldAt}`}
                      >
                        Refund
                      </button>
                    </Form>
                  ) : (
                    "–"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {heldCount > heldPayments.length ? (
        <p className="console-count">{`The newest ${heldPayments.length} of ${heldCount}.`}</p>
      ) : null}
      <WaitingReturns rows={waitingReturns.filter((row) => row.kind === "return")} kind="return" />
      <WaitingReturns rows={waitingReturns.filter((row) => row.kind === "withdrawal")} kind="withdrawal" />
      <h2>Orders</h2>
    </section>
  );
}
