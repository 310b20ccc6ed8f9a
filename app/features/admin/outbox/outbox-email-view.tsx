// One e-mail of the outbox as it was written and sent: its delivery facts (status, attempts, when, the last error, its
// Message-ID), its text, and its HTML in a sandboxed frame where nothing of it can run.

import { StatusBadge } from "#app/features/admin/console-ui";

/** The e-mail as the loader words it. */
export interface OutboxEmailView {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  status: string;
  attempts: number;
  createdAt: string;
  sentAt: string;
  nextAttemptAt: string | null;
  lastError: string | null;
  messageId: string | null;
  textBody: string;
  hasHtml: boolean;
}

/** Status, attempts, recipient, kind, times, the last error and the Message-ID. */
export function OutboxEmailFacts({ email }: { email: OutboxEmailView }) {
  return (
    <dl className="console-facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={email.status} />
      </dd>
      <dt>Attempts</dt>
      <dd>{email.attempts}</dd>
      <dt>To</dt>
      <dd>{email.recipient}</dd>
      <dt>Kind</dt>
      <dd>{email.kind}</dd>
      <dt>Written</dt>
      <dd>{email.createdAt}</dd>
      <dt>Sent</dt>
      <dd>{email.sentAt}</dd>
      {email.nextAttemptAt ? (
        <>
          <dt>Next attempt</dt>
          <dd>{email.nextAttemptAt}</dd>
        </>
      ) : null}
      {email.lastError ? (
        <>
          <dt>Last error</dt>
          <dd>{email.lastError}</dd>
        </>
      ) : null}
      <dt>Message-ID</dt>
      <dd>
        <code>{email.messageId}</code>
      </dd>
    </dl>
  );
}

/** The text part, and the HTML part framed as a mail client shows it. */
export function OutboxEmailBodies({ email }: { email: OutboxEmailView }) {
  return (
    <>
      <section aria-labelledby="text-title">
        <h2 id="text-title">Text</h2>
        <pre className="console-email-text" tabIndex={0} aria-labelledby="text-title">
          {email.textBody}
        </pre>
      </section>
      {email.hasHtml ? (
        <section aria-labelledby="html-title">
          <h2 id="html-title">HTML</h2>
          {/* As a mail client shows it: the e-mail's own document, in a frame where nothing of it can run. */}
          <iframe
            className="console-email-frame"
            src={`/admin/outbox/${email.id}/html`}
            sandbox=""
            title={`The e-mail “${email.subject}” as sent`}
            loading="lazy"
          />
        </section>
      ) : null}
    </>
  );
}
