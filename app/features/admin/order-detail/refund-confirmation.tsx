// The order page's second step: a refund or a cancellation asks first, naming the amount and the card, and lets the
// amount come down before anything is sent to the processor.

import { Form, Link } from "react-router";
import type { OrderActionAnswer } from "./order-detail-types";

type Confirm = NonNullable<OrderActionAnswer["confirm"]> & { form: OrderActionAnswer["form"]; key: string };

/** The refund form's fields, carried on by the confirmation's forms as hidden inputs. */
function CarriedFields({ fields }: { fields: [string, string][] }) {
  return fields.map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}

/** "Refund $12.00 to Visa ending in 4242?": the button that refunds, a way back, and the amount to lower. */
export function RefundConfirmation({ number, confirm, isBusy }: { number: string; confirm: Confirm; isBusy: boolean }) {
  return (
    <main id="main" className="console-main">
      <title>{`Confirm | Order ${number} | Console`}</title>
      <p className="console-breadcrumb">
        <Link to="/admin/orders">Orders</Link> / <Link to={`/admin/orders/${number}`}>{number}</Link>
      </p>
      <section className="console-confirm" aria-labelledby="confirm-title">
        <h1 id="confirm-title">{confirm.question}</h1>
        {confirm.details.length > 0 ? (
          <ul>
            {confirm.details.map((detail) => (
              <li key={detail}>{detail}</li>
            ))}
          </ul>
        ) : null}
        <p>The money goes back to the shopper at once and cannot be taken back; the shopper is sent an e-mail.</p>
        <Form method="post" className="console-actions">
          <input type="hidden" name="intent" value={confirm.form ?? ""} />
          <input type="hidden" name="key" value={confirm.key} />
          <CarriedFields fields={confirm.fields} />
          {confirm.amount !== null ? <input type="hidden" name="amount" value={confirm.amount} /> : null}
          <input type="hidden" name="confirmed" value="yes" />
          <button type="submit" className="console-button console-button--danger" disabled={isBusy}>
            {confirm.button}
          </button>
          <Link to={`/admin/orders/${number}`} className="console-button">
            Keep the money, go back
          </Link>
        </Form>
        {confirm.amount !== null ? (
          <Form method="post" className="console-form console-form--inline" noValidate>
            <input type="hidden" name="intent" value="refund" />
            <input type="hidden" name="key" value={confirm.key} />
            <CarriedFields fields={confirm.fields} />
            <div className="console-field">
              <label htmlFor="field-confirm-amount">Refund less</label>
              <input
                id="field-confirm-amount"
                name="amount"
                inputMode="decimal"
                maxLength={20}
                defaultValue={confirm.amount}
                aria-describedby="hint-confirm-amount"
              />
              <p id="hint-confirm-amount" className="console-hint">
                At most what is worked out; you are asked again with the new amount.
              </p>
            </div>
            <button type="submit" className="console-button" disabled={isBusy}>
              Change the amount
            </button>
          </Form>
        ) : null}
      </section>
    </main>
  );
}
