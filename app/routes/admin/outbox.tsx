// /admin/outbox: the e-mails the shop wrote, newest first, with their delivery state.

import type { Route } from "./+types/outbox";
import { PageHeader } from "#app/features/admin/console-ui";
import { OutboxPages, OutboxTable } from "#app/features/admin/outbox/outbox-table";
import { formatConsoleTime, requireConsole } from "./require-operator";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/outbox");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const before = new URL(request.url).searchParams.get("before");
  const page = await services.email.listOutbox({ before: before && before.length <= 200 ? before : null, limit: 50 });
  return {
    isFirstPage: !before,
    next: page.next,
    entries: page.entries.map((entry) => ({
      id: entry.id,
      createdAt: formatConsoleTime(new Date(entry.createdAt), timeZone),
      kind: entry.kind,
      recipient: entry.recipient,
      subject: entry.subject,
      status: entry.status,
      attempts: entry.attempts,
      sentAt: entry.sentAt ? formatConsoleTime(new Date(entry.sentAt), timeZone) : "",
      lastError: entry.lastError ?? "",
    })),
  };
}

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { entries, next, isFirstPage } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Outbox | Console</title>
      <PageHeader title="Outbox">
        <p>
          The e-mails the shop wrote, newest first: sent, waiting, being retried or given up. Open one to read it as it
          was sent.
        </p>
      </PageHeader>
      <OutboxTable entries={entries} />
      <OutboxPages isFirstPage={isFirstPage} next={next} />
    </main>
  );
}
