// /admin/outbox/{id}: one e-mail as written and sent, its state, attempts, text and HTML.

import { data, Link } from "react-router";
import type { Route } from "./+types/outbox-email";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { formatConsoleTime, requireConsole } from "./require-operator";

export async function loader({ context, params }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/outbox-email");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const email = await services.email.getOutboxEmail(params.id);
  if (!email) throw data(null, { status: 404 });
  return {
    id: email.id,
    kind: email.kind,
    recipient: email.recipient,
    subject: email.subject,
    status: email.status,
    attempts: email.attempts,
    createdAt: formatConsoleTime(new Date(email.createdAt), timeZone),
    sentAt: email.sentAt ? formatConsoleTime(new Date(email.sentAt), timeZone) : "–",
    nextAttemptAt: email.status === "pending" ? formatConsoleTime(new Date(email.nextAttemptAt), timeZone) : null,
    lastError: email.lastError,
    messageId: email.messageId,
    textBody: email.textBody,
    hasHtml: email.htmlBody.length > 0,
  };
}

/** One e-mail as it was written and sent: its state and attempts, its text, and its HTML in a frame and on a page of
 * its own. */
export default function OutboxEmail({ loaderData: email }: Route.ComponentProps) {
  return (
    <main id="main" className="console-main">
      <title>{`${email.subject} | Outbox | Console`}</title>
      <p className="console-breadcrumb">
        <Link to="/admin/outbox">Outbox</Link>
      </p>
      <PageHeader
        title={email.subject}
        action={
          email.hasHtml ? (
            <a className="console-button console-button--primary" href={`/admin/outbox/${email.id}/html`}>
              Open the HTML as sent
            </a>
          ) : null
        }
      />
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
    </main>
  );
}
