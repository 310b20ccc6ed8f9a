// "Needs attention"'s Refund of a held payment asks first: the page that names the amount, with the button that
// refunds and a way back to the list.

import { Form, Link } from "react-router";

/** The question, its Refund button and "Keep the money, go back" to `backTo`. */
export function HeldPaymentConfirmation({
  confirm,
  backTo,
  isBusy,
}: {
  confirm: { question: string; button: string; payment: string };
  backTo: string;
  isBusy: boolean;
}) {
  return (
    <main id="main" className="console-main">
      <title>Confirm | Orders | Console</title>
      <p className="console-breadcrumb">
        <Link to="/admin/orders">Orders</Link> / <Link to={backTo}>Needs attention</Link>
      </p>
      <section className="console-confirm" aria-labelledby="confirm-title">
        <h1 id="confirm-title">{confirm.question}</h1>
        <p>The payment has no order. The money goes back to the shopper at once and cannot be taken back.</p>
        <Form method="post" className="console-actions">
          <input type="hidden" name="intent" value="refund-held-payment" />
          <input type="hidden" name="payment" value={confirm.payment} />
          <input type="hidden" name="confirmed" value="yes" />
          <button type="submit" className="console-button console-button--danger" disabled={isBusy}>
            {confirm.button}
          </button>
          <Link to={backTo} className="console-button">
            Keep the money, go back
          </Link>
        </Form>
      </section>
    </main>
  );
}
