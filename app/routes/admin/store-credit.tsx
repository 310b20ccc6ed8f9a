// /admin/store-credit: a customer's store credit by their e-mail, with Add and Remove credit.

import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/store-credit";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { storeCreditActionSchema, storeCreditLookupSchema } from "#shared/store-credit-schemas";
import { mayUse } from "#shared/console-access";
import { readFormOrRefuse } from "#app/form-request";
import { PageHeader } from "#app/features/admin/console-ui";
import {
  CustomerCreditSection,
  OutstandingBalances,
  type CreditAnswer as Answer,
} from "#app/features/admin/store-credit/customer-credit";
import { formatConsoleTime, requireConsole } from "./require-operator";

const ENTRY_LABELS: Record<string, string> = {
  issue: "Issued",
  spend: "Spent",
  refund: "Refunded to store credit",
  adjust: "Adjusted",
  expire: "Expired",
};

/** /admin/store-credit: a customer's store credit by their e-mail, "Add credit" and "Remove credit" with a note. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, "routes/admin/store-credit");
  const { email } = storeCreditLookupSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const timeZone = await services.settings.timeZone();
  const found = email ? await services.storeCredit.customer(email) : null;
  return {
    email,
    mayExport: mayUse(access, "routes/admin/store-credit-export"),
    today: new Date().toISOString().slice(0, 10),
    customer: found && {
      id: found.user.id,
      email: found.user.email,
      balance: formatCents(found.figures.balanceCents),
      held: found.figures.heldCents > 0 ? formatCents(found.figures.heldCents) : null,
      history: found.history.map((row) => ({
        id: row.id,
        at: formatConsoleTime(row.createdAt, timeZone),
        what: ENTRY_LABELS[row.kind] ?? row.kind,
        amount: `${row.amountCents < 0 ? "-" : "+"}${formatCents(Math.abs(row.amountCents))}`,
        detail: [row.orderNumber ? `Order ${row.orderNumber}` : "", row.note ?? "", row.actor ? `by ${row.actor}` : ""]
          .filter(Boolean)
          .join(" · "),
      })),
    },
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  requireConsole(context, "routes/admin/store-credit");
  const fields = await readFormOrRefuse(request);
  const { actor, services } = requireConsole(context, "routes/admin/store-credit", fields.intent ?? null);
  const form = fields.intent === "remove-credit" ? "remove-credit" : "add-credit";
  const values = { amount: (fields.amount ?? "").slice(0, 20), note: (fields.note ?? "").slice(0, 200) };
  const parsed = storeCreditActionSchema.safeParse(fields);
  if (!parsed.success)
    return data<Answer>(
      { form, errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values },
      { status: 400 },
    );
  const { intent, user, amount, note } = parsed.data;
  try {
    if (intent === "add-credit") await services.storeCredit.addCredit(actor, user, amount, note);
    else await services.storeCredit.removeCredit(actor, user, amount, note);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data<Answer>({ form, errors: { amount: error.message }, values }, { status: error.status });
  }
  return {
    done: intent === "add-credit" ? `Added ${formatCents(amount)} of store credit.` : `Removed ${formatCents(amount)}.`,
  } satisfies Answer;
}

export default function StoreCreditPage({ loaderData, actionData }: Route.ComponentProps) {
  const { customer, email } = loaderData;
  const isBusy = useNavigation().state !== "idle";
  return (
    <main id="main" className="console-main">
      <title>Store credit | Console</title>
      <PageHeader title="Store credit">
        <p>
          A customer&apos;s store credit, by the e-mail of their account. Refunds to store credit are made on the order.
        </p>
      </PageHeader>
      <Form method="get" className="console-form console-form--inline">
        <div className="console-field">
          <label htmlFor="field-email">Customer&apos;s e-mail</label>
          <input id="field-email" name="email" type="email" maxLength={254} defaultValue={email} autoComplete="off" />
        </div>
        <button type="submit" className="console-button">
          Find
        </button>
      </Form>
      <p className="console-notice" role="status">
        {actionData && "done" in actionData ? actionData.done : ""}
      </p>
      {email && !customer ? <p>No account has the e-mail {email}.</p> : null}
      {customer ? <CustomerCreditSection customer={customer} answer={actionData} isBusy={isBusy} /> : null}
      {loaderData.mayExport ? <OutstandingBalances today={loaderData.today} /> : null}
    </main>
  );
}
