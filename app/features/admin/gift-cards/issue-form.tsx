// "Issue gift card" by hand: to an e-mail address (where its number is sent, and nowhere else), an amount, a note kept
// with the card and in the audit log, and an optional expiry.

import { Form } from "react-router";
import { ConsoleField } from "#app/features/admin/console-field";

type Refused = { form: string; errors: Record<string, string>; values: Record<string, string> } | null;

/** The form, drawn again as typed when refused. */
export function IssueGiftCardForm({ issue, isBusy }: { issue: Refused; isBusy: boolean }) {
  return (
    <section className="console-section" aria-labelledby="issue-title">
      <h2 id="issue-title">Issue gift card</h2>
      <Form method="post" className="console-form" noValidate>
        <input type="hidden" name="intent" value="issue" />
        <ConsoleField
          form="issue"
          name="email"
          label="E-mail"
          hint="The card's number is e-mailed here; nobody else sees it."
          defaultValue={issue?.values.email ?? ""}
          error={issue?.errors.email}
        />
        <ConsoleField
          form="issue"
          name="amount"
          label="Amount"
          inputMode="decimal"
          defaultValue={issue?.values.amount ?? ""}
          error={issue?.errors.amount}
        />
        <ConsoleField
          form="issue"
          name="note"
          label="Note"
          hint="Why: kept with the card and in the audit log."
          defaultValue={issue?.values.note ?? ""}
          error={issue?.errors.note}
        />
        <div className="console-field">
          <label htmlFor="field-issue-expiresOn">Expires on (optional)</label>
          <input
            id="field-issue-expiresOn"
            name="expiresOn"
            type="date"
            defaultValue={issue?.values.expiresOn ?? ""}
            aria-invalid={issue?.errors.expiresOn ? true : undefined}
            aria-describedby={issue?.errors.expiresOn ? "field-issue-expiresOn-error" : undefined}
          />
          {issue?.errors.expiresOn ? (
            <p id="field-issue-expiresOn-error" className="console-field__error">
              {issue.errors.expiresOn}
            </p>
          ) : null}
        </div>
        <div>
          <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
            Issue gift card
          </button>
        </div>
      </Form>
    </section>
  );
}
