// /admin/recovery: the basket reminders' settings.

import { data, Link, useNavigation } from "react-router";
import type { Route } from "./+types/recovery";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { recoverySettingsSchema } from "#shared/recovery-schemas";
import { readFormOrRefuse } from "#app/form-request";
import { PageHeader } from "#app/features/admin/console-ui";
import { RecoveryForm } from "#app/features/admin/recovery/recovery-form";
import { requireConsole } from "./require-operator";

type Answer = { errors: Record<string, string>; values: Record<string, string> } | { done: string };

/** /admin/recovery: the basket reminders' settings (the dashboard shows what they brought back). */
export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/recovery");
  return { settings: await services.recoverySettings.read() };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/recovery", null);
  const fields = await readFormOrRefuse(request);
  const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value.slice(0, 200)]));
  const parsed = recoverySettingsSchema.safeParse(fields);
  if (!parsed.success)
    return data<Answer>(
      { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values },
      { status: 400 },
    );
  try {
    await services.recoverySettings.save(parsed.data, actor);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const errors = (error.details?.errors as Record<string, string> | undefined) ?? { form: error.message };
    return data<Answer>({ errors, values }, { status: error.status });
  }
  return { done: "Basket reminder settings saved." } satisfies Answer;
}

export default function Recovery({ loaderData, actionData }: Route.ComponentProps) {
  const { settings } = loaderData;
  const isBusy = useNavigation().state !== "idle";
  const refused = actionData && "errors" in actionData ? actionData : null;
  return (
    <main id="main" className="console-main">
      <title>Basket reminders | Console</title>
      <PageHeader title="Basket reminders">
        <p>
          &quot;You left something in your basket&quot; goes to shoppers who ticked &quot;E-mail me about my basket and
          offers&quot; (or turned it on in their account), once per address in 7 days, never after they paid, emptied or
          changed the basket, and never to an address that unsubscribed. What they brought back is on the{" "}
          <Link to="/admin">dashboard</Link>.
        </p>
      </PageHeader>
      <p className="console-notice" role="status">
        {actionData && "done" in actionData ? actionData.done : ""}
      </p>
      <RecoveryForm settings={settings} refused={refused} isBusy={isBusy} />
    </main>
  );
}
