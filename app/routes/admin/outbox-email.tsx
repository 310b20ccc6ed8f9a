// /admin/outbox/{id}: one e-mail as written and sent, its state, attempts, text and HTML.

import { data, Link } from "react-router";
import type { Route } from "./+types/outbox-email";
import { PageHeader } from "#app/features/admin/console-ui";
import { OutboxEmailBodies, OutboxEmailFacts } from "#app/features/admin/outbox/outbox-email-view";
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
      <OutboxEmailFacts email={email} />
      <OutboxEmailBodies email={email} />
    </main>
  );
}
