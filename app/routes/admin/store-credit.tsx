import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/store-credit";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { storeCreditActionSchema, storeCreditLookupSchema } from "#shared/store-credit-schemas";
import { mayUse } from "#shared/console-access";
import { readFormOrRefuse } from "#app/form-request";
import { PageHeader } from "#app/features/admin/console-ui";
import { ConsoleField } from "#app/features/admin/console-field";
import { formatConsoleTime, requireConsole } from "./require-operator";

type Answer = { form: string; errors: Record<string, string>; values: Record<string, string> } | { done: string };

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

function CreditForm({
  intent,
  title,
  userId,
  answer,
  isBusy,
}: {
  intent: "add-credit" | "remove-credit";
  title: string;
  userId: string;
  answer: Answer | undefined;
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
      {customer ? (
        <section aria-labelledby="customer-title">
          <h2 id="customer-title">{customer.email}</h2>
          <p>
            Store credit: <strong>{customer.balance}</strong>
            {customer.held ? ` (${customer.held} held by a payment in progress)` : ""}
          </p>
          <div className="console-columns">
            <CreditForm
              intent="add-credit"
              title="Add credit"
              userId={customer.id}
              answer={actionData}
              isBusy={isBusy}
            />
            <CreditForm
              intent="remove-credit"
              title="Remove credit"
              userId={customer.id}
              answer={actionData}
              isBusy={isBusy}
            />
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
      ) : null}
      {loaderData.mayExport ? (
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
              <input id="field-on" name="on" type="date" defaultValue={loaderData.today} required />
            </div>
            <button type="submit" className="console-button">
              Download CSV
            </button>
          </Form>
        </section>
      ) : null}
    </main>
  );
}
