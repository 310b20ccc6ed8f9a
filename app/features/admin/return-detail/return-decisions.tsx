// The operator's decisions on a return, each a button the return's state and the operator's role allow: approve,
// refund, replace, cancel, and decline with a message to the shopper.

import { Form } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { SeenStatus, type ConsoleReturn } from "./return-facts";

/** Approve, Refund (its amount), Replace, Cancel the return. */
export function ReturnActions({ found, busy }: { found: ConsoleReturn; busy: boolean }) {
  const seen = <SeenStatus status={found.status.key} />;
  return (
    <div className="console-actions">
      {found.canApprove ? (
        <Form method="post">
          {seen}
          <button type="submit" name="intent" value="approve" className="console-button" disabled={busy}>
            Approve
          </button>
        </Form>
      ) : null}
      {found.canRefund ? (
        <Form method="post">
          {seen}
          <button type="submit" name="intent" value="refund" className="console-button" disabled={busy}>
            {`Refund ${found.refund}`}
          </button>
        </Form>
      ) : null}
      {found.canReplace ? (
        <Form method="post">
          {seen}
          <button type="submit" name="intent" value="replace" className="console-button" disabled={busy}>
            Replace
          </button>
        </Form>
      ) : null}
      {found.canCancel ? (
        <Form method="post">
          {seen}
          <button
            type="submit"
            name="intent"
            value="cancel"
            className="console-button console-button--danger"
            disabled={busy}
          >
            Cancel the return
          </button>
        </Form>
      ) : null}
    </div>
  );
}

/** Decline, with the message sent to the shopper saying why. */
export function DeclineForm({
  status,
  errors,
  busy,
}: {
  status: string;
  errors: Record<string, string> | undefined;
  busy: boolean;
}) {
  const seen = <SeenStatus status={status} />;
  return (
    <Form method="post" className="console-form">
      {seen}
      <div className="console-field">
        <label htmlFor="message">Message to the shopper</label>
        <textarea
          id="message"
          name="message"
          rows={3}
          maxLength={2000}
          {...invalidFieldProps("message", errors?.message, "message-hint")}
        />
        <p id="message-hint" className="console-hint">
          Sent with the decline: say why.
        </p>
        <FieldError fieldId="message" message={errors?.message} />
      </div>
      <button type="submit" name="intent" value="decline" className="console-button" disabled={busy}>
        Decline
      </button>
    </Form>
  );
}
