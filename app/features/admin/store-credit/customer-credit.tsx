// One customer's store credit in the console: the balance (and what a payment in progress holds), "Add credit" and
// "Remove credit" with a note, and every change to it.

import { Form } from "react-router";
import { ConsoleField } from "#app/features/admin/console-field";

/** What the page's action answered: a refused form, drawn again as typed, or what was done. */
export type CreditAnswer =
  { form: string; errors: Record<string, string>; values: Record<string, string> } | { done: string };

/** A customer's store credit, as the loader words it. */
export interface CustomerCredit {
  id: string;
  email: string;
  balance: string;
  held: string | null;
  history: { id: string; at: string; what: string; amount: string; detail: string }[];
}

/** "Add credit" or "Remove credit": an amount and why. */
export function CreditForm({
  intent,
  title,
  userId,
  answer,
  isBusy,
}: {
  intent: "add-credit" | "remove-credit";
  title: string;
  userId: string;
  answer: CreditAnswer | undefined;
  isBusy: boolean;
}) {
  const refused = answer && "errors" in answer && answer.form === intent ? answer : null;
  return (
    <Form method="post" className="console-form" noValidate aria-labelledby={`${intent}-title`}>
      <h3 id={`${intent}-title`}>{title}</h3>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="user" value={userId} />
      <ConsoleField
        form={intent}
        name="amount"
        label="Amount"
        inputMode="decimal"
        defaultValue={refused?.values.amount ?? ""}
        error={refused?.errors.amount ?? refused?.errors.form ?? refused?.errors.user}
      />
      <ConsoleField
        form={intent}
        name="note"
        label="Note"
        hint="Why: the shopper does not see it; the history and the audit log do."
        defaultValue={refused?.values.note ?? ""}
        error={refused?.errors.note}
      />
      <div>
        <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
          {title}
        </button>
      </div>
    </Form>
  );
}

/** The customer's section: balance, the two forms, the history. */
export function CustomerCreditSection({
  customer,
  answer,
  isBusy,
}: {
  customer: CustomerCredit;
  answer: CreditAnswer | undefined;
  isBusy: boolean;
}) {
  return (
    <section aria-labelledby="customer-title">
      <h2 id="customer-title" className="console-customer">
        {customer.email}
      </h2>
      <p>
        Store credit: <strong>{customer.balance}</strong>
        {customer.held ? ` (${customer.held} held by a payment in progress)` : ""}
      </p>
      <div className="console-columns">
        <CreditForm intent="add-credit" title="Add credit" userId={customer.id} answer={answer} isBusy={isBusy} />
        <CreditForm intent="remove-credit" title="Remove credit" userId={customer.id} answer={answer} isBusy={isBusy} />
      </div>
      <h3>History</h3>
      {customer.history.length === 0 ? (
        <p>Nothing yet.</p>
      ) : (
        <table className="console-table" tabIndex={0}>
          <caption className="visually-hidden">Store credit history of {customer.email}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Amount</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {customer.history.map((row) => (
              <tr key={row.id}>
                <td>{row.at}</td>
                <td>{row.what}</td>
                <td>{row.amount}</td>
                <td>{row.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** "Outstanding balances": the CSV of what is owed at the end of a day (for a role that may download it). */
export function OutstandingBalances({ today }: { today: string }) {
  return (
    <section aria-labelledby="outstanding-title">
      <h2 id="outstanding-title">Outstanding balances</h2>
      <Form
        method="get"
        action="/admin/store-credit/export"
        reloadDocument
        className="console-form console-form--inline"
      >
        <div className="console-field">
          <label htmlFor="field-on">Balances owed at the end of</label>
          <input id="field-on" name="on" type="date" defaultValue={today} required />
        </div>
        <button type="submit" className="console-button">
          Download CSV
        </button>
      </Form>
    </section>
  );
}
