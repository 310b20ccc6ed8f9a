import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/gift-cards";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { giftCardConsoleSchema, giftCardName } from "#shared/gift-cards";
import { readFormOrRefuse } from "#app/form-request";
import { PageHeader, StatusBadge } from "#app/features/admin/console-ui";
import { ConsoleField } from "#app/features/admin/console-field";
import { formatConsoleTime, requireConsole } from "./require-operator";

type Answer = { form: string; errors: Record<string, string>; values: Record<string, string> } | { done: string };

const STATUS_LABELS = { active: "Active", used: "Used up", expired: "Expired", disabled: "Disabled" } as const;

/**
 * /admin/gift-cards: every card (never its number: last four, value, balance, issued, expires, status), "Issue gift
 * card" by hand, and each card's "Disable" and "Adjust" with a note.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/gift-cards");
  const timeZone = await services.settings.timeZone();
  const cards = await services.giftCards.list();
  return {
    cards: cards.map((card) => ({
      id: card.id,
      name: giftCardName(card.lastFour),
      lastFour: card.lastFour,
      initial: formatCents(card.initialCents),
      balance: formatCents(card.balanceCents),
      issued: formatConsoleTime(card.issuedAt, timeZone),
      expires: card.expiresAt ? formatConsoleTime(card.expiresAt, timeZone) : "Never",
      status: card.status,
      source: card.orderId ? `Sold to ${card.recipient ?? "?"}` : `Issued by hand${card.note ? `: ${card.note}` : ""}`,
    })),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const fields = await readFormOrRefuse(request);
  const { actor, services } = requireConsole(context, "routes/admin/gift-cards", fields.intent ?? null);
  const form = ["issue", "disable", "adjust"].includes(fields.intent ?? "") ? fields.intent! : "issue";
  const values = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, value.slice(0, 254)]));
  const parsed = giftCardConsoleSchema.safeParse(fields);
  if (!parsed.success)
    return data<Answer>(
      { form, errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values },
      { status: 400 },
    );
  const input = parsed.data;
  try {
    switch (input.intent) {
      case "issue": {
        const card = await services.giftCards.issueByHand(
          { email: input.email, amountCents: input.amount, note: input.note, expiresOn: input.expiresOn },
          actor,
        );
        return { done: `${giftCardName(card.lastFour)} issued and e-mailed to ${input.email}.` } satisfies Answer;
      }
      case "disable":
        return {
          done: `${giftCardName(await services.giftCards.disable(input.card, actor))} disabled.`,
        } satisfies Answer;
      case "adjust": {
        const lastFour = await services.giftCards.adjust(input.card, input.amount, input.note, actor);
        const change = `${input.amount < 0 ? "-" : "+"}${formatCents(Math.abs(input.amount))}`;
        return { done: `${giftCardName(lastFour)} adjusted by ${change}.` } satisfies Answer;
      }
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "amount";
    return data<Answer>({ form, errors: { [field]: error.message }, values }, { status: error.status });
  }
}

export default function GiftCardsPage({ loaderData, actionData }: Route.ComponentProps) {
  const isBusy = useNavigation().state !== "idle";
  const refused = (form: string, card?: string) =>
    actionData && "errors" in actionData && actionData.form === form && (!card || actionData.values.card === card)
      ? actionData
      : null;
  const issue = refused("issue");
  return (
    <main id="main" className="console-main">
      <title>Gift cards | Console</title>
      <PageHeader title="Gift cards">
        <p>Cards sold in the shop and issued here. A card&apos;s number is only ever in the e-mail that sends it.</p>
      </PageHeader>
      <p className="console-notice" role="status">
        {actionData && "done" in actionData ? actionData.done : ""}
      </p>
      {loaderData.cards.length === 0 ? (
        <p>No gift cards yet.</p>
      ) : (
        <table className="console-table" tabIndex={0}>
          <caption className="visually-hidden">Gift cards</caption>
          <thead>
            <tr>
              <th scope="col">Last four</th>
              <th scope="col" className="console-number">
                Initial value
              </th>
              <th scope="col" className="console-number">
                Balance
              </th>
              <th scope="col">Issued</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {loaderData.cards.map((card) => {
              const adjust = refused("adjust", card.id);
              return (
                <tr key={card.id}>
                  <td>
                    <code>{card.lastFour}</code>
                    <br />
                    <small>{card.source}</small>
                  </td>
                  <td className="console-number">{card.initial}</td>
                  <td className="console-number">{card.balance}</td>
                  <td>{card.issued}</td>
                  <td>{card.expires}</td>
                  <td>
                    <StatusBadge status={card.status} label={STATUS_LABELS[card.status]} />
                  </td>
                  <td>
                    {card.status === "disabled" ? null : (
                      <Form method="post" noValidate>
                        <input type="hidden" name="intent" value="disable" />
                        <input type="hidden" name="card" value={card.id} />
                        <button
                          type="submit"
                          className="console-link-button"
                          disabled={isBusy}
                          aria-label={`Disable ${card.name}`}
                        >
                          Disable
                        </button>
                      </Form>
                    )}
                    <details open={adjust !== null}>
                      <summary>Adjust</summary>
                      <Form method="post" className="console-form" noValidate>
                        <input type="hidden" name="intent" value="adjust" />
                        <input type="hidden" name="card" value={card.id} />
                        <ConsoleField
                          form={`adjust-${card.lastFour}`}
                          name="amount"
                          label="Amount"
                          hint="5.00 adds, -5.00 takes away."
                          inputMode="decimal"
                          defaultValue={adjust?.values.amount ?? ""}
                          error={adjust?.errors.amount ?? adjust?.errors.card}
                        />
                        <ConsoleField
                          form={`adjust-${card.lastFour}`}
                          name="note"
                          label="Note"
                          defaultValue={adjust?.values.note ?? ""}
                          error={adjust?.errors.note}
                        />
                        <button type="submit" className="console-button" disabled={isBusy}>
                          Adjust {card.name}
                        </button>
                      </Form>
                    </details>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
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
    </main>
  );
}
