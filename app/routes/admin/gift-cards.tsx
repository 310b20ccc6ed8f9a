// /admin/gift-cards: every card, issued by hand or sold, with Disable and Adjust.

import { data, useNavigation } from "react-router";
import type { Route } from "./+types/gift-cards";
import { AppError } from "#shared/errors";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { formatCents } from "#shared/money";
import { giftCardConsoleSchema, giftCardName } from "#shared/gift-cards";
import { readFormOrRefuse } from "#app/form-request";
import { PageHeader } from "#app/features/admin/console-ui";
import { GiftCardTable } from "#app/features/admin/gift-cards/gift-card-table";
import { IssueGiftCardForm } from "#app/features/admin/gift-cards/issue-form";
import { formatConsoleTime, requireConsole } from "./require-operator";

type Answer = { form: string; errors: Record<string, string>; values: Record<string, string> } | { done: string };

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
        <GiftCardTable cards={loaderData.cards} refused={(card) => refused("adjust", card)} isBusy={isBusy} />
      )}
      <IssueGiftCardForm issue={issue} isBusy={isBusy} />
    </main>
  );
}
