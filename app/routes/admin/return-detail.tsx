// /admin/returns/{number}: one return or withdrawal, and the operator's decisions on it.

import { data, Link, useNavigation, type ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/return-detail";
import { adminReturnActionSchema } from "#shared/return-schemas";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { mayUse } from "#shared/console-access";
import {
  RETURN_KIND_LABELS,
  RETURN_STATUS_LABELS,
  returnAllows,
  returnReasonLabel,
  RETURN_NUMBER_PATTERN,
  type ReturnStatus,
} from "#shared/returns";
import { readFormOrRefuse } from "#app/form-request";
import { FieldError } from "#app/components/form/field-error";
import { PageHeader } from "#app/features/admin/console-ui";
import { ReturnFacts } from "#app/features/admin/return-detail/return-facts";
import { ReturnLines } from "#app/features/admin/return-detail/return-lines";
import { DeclineForm, ReturnActions } from "#app/features/admin/return-detail/return-decisions";
import { formatConsoleTime, requireConsole } from "./require-operator";

const ROUTE = "routes/admin/return-detail";

/** The return's number from the address; anything no return could have is the 404 page, before any query. */
function returnNumberOf(param: string | undefined): string {
  const number = (param ?? "").slice(0, 40).toUpperCase();
  if (!RETURN_NUMBER_PATTERN.test(number)) throw data(null, { status: 404 });
  return number;
}

export async function loader({ context, params }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, ROUTE);
  const may = (intent: string) => mayUse(access, ROUTE, intent);
  const timeZone = await services.settings.timeZone();
  const found = await services.returns.getReturn(returnNumberOf(params.number));
  if (!found) throw data(null, { status: 404 });
  const status: ReturnStatus = found.status;
  const withdrawal = found.kind === "withdrawal" ? await services.withdrawals.forReturn(found.number) : null;
  const isReplaced = found.replacementOrderNumber !== null;
  return {
    number: found.number,
    kind: RETURN_KIND_LABELS[found.kind],
    status: { key: status, label: RETURN_STATUS_LABELS[status] },
    orderNumber: found.orderNumber,
    email: found.contactEmail ?? "–",
    requestedAt: formatConsoleTime(found.createdAt, timeZone),
    // The withdrawal as the shopper confirmed it, apart from the return it opened.
    withdrawal: withdrawal && {
      receivedAt: formatConsoleTime(withdrawal.receivedAt, timeZone),
      by: `${withdrawal.name} (${withdrawal.email})${withdrawal.isFull ? ", the whole order" : ""}`,
    },
    decision: found.decidedAt
      ? `${formatConsoleTime(found.decidedAt, timeZone)} by ${found.decidedBy ?? "–"}${found.decisionMessage ? `: ${found.decisionMessage}` : ""}`
      : null,
    fee: formatCents(found.returnFeeCents),
    figure: formatCents(found.figure.totalCents),
    refund: formatCents(found.figure.refundCents),
    refunded: found.refundedAt ? formatCents(found.refundCents ?? 0) : null,
    replacementOrderNumber: found.replacementOrderNumber,
    canApprove: returnAllows(status, "approve") && may("approve"),
    canDecline: returnAllows(status, "decline") && may("decline"),
    canCancel: returnAllows(status, "cancel") && may("cancel"),
    canReceive: returnAllows(status, "receive") && may("receive"),
    canRefund:
      returnAllows(status, "refund") &&
      may("refund") &&
      found.refundedAt === null &&
      found.figure.refundCents > 0 &&
      found.hasRefundLines,
    canReplace: returnAllows(status, "replace") && may("replace") && found.hasReplaceLines && !isReplaced,
    lines: found.lines.map((line) => ({
      index: line.index,
      title: line.options ? `${line.title} (${line.options})` : line.title,
      quantity: line.quantity,
      reason: returnReasonLabel(line.reason),
      resolution: line.resolution === "replace" ? `Replace with ${line.replacement || "another option"}` : "Refund",
      received: line.receivedQuantity,
      damaged: line.damagedQuantity,
    })),
  };
}

/**
 * A step refused because the return moved on (another operator, or another instance, was first: 409) draws the return
 * as it is now, beside the refusal, as the page sent without JavaScript does; other refusals keep what was typed.
 */
export function shouldRevalidate({ actionStatus, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return actionStatus === 409 ? true : defaultShouldRevalidate;
}

type ActionAnswer = { errors?: Record<string, string>; done?: string; line?: number };

const DONE: Record<string, string> = {
  approve: "Approved. The shopper is sent what to send and where.",
  decline: "Declined. The shopper is sent your message.",
  cancel: "Cancelled.",
};

/** One step on the return: each one service call; a refusal reads as a sentence by its field. */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireConsole(context, ROUTE);
  const fields = await readFormOrRefuse(request);
  const { services, actor } = requireConsole(context, ROUTE, fields.intent ?? null);
  const parsed = adminReturnActionSchema.safeParse(fields);
  if (!parsed.success) {
    const errors = fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE });
    // A line's counts are named by their line, as the service names them.
    const line = /^\d{1,3}$/.test(fields.line ?? "") ? fields.line : null;
    for (const name of ["received", "damaged"])
      if (errors[name] && line !== null) {
        errors[`${name}-${line}`] = errors[name];
        delete errors[name];
      }
    return data<ActionAnswer>({ errors }, { status: 400 });
  }
  const input = parsed.data;
  const number = returnNumberOf(params.number);
  try {
    const current = await services.returns.getReturn(number);
    if (!current) throw data(null, { status: 404 });
    if (current.status !== input.seen)
      return data<ActionAnswer>(
        { errors: { form: "This return changed since the page was drawn. Reload the page and try again." } },
        { status: 409 },
      );
    switch (input.intent) {
      case "approve":
        await services.returns.approve(actor, number);
        break;
      case "decline":
        await services.returns.decline(actor, number, input.message);
        break;
      case "cancel":
        await services.returns.cancel(actor, number);
        break;
      case "receive": {
        const received = await services.returns.markReceived(actor, number, input.line, {
          received: input.received,
          damaged: input.damaged,
        });
        return {
          done: `Marked received. ${received.restocked} put back in stock.`,
        } satisfies ActionAnswer;
      }
      case "refund": {
        const refund = await services.returns.refund(actor, number);
        return {
          done: `Refunded ${formatCents(refund.amountCents)}. The shopper is sent the refund e-mail.`,
        } satisfies ActionAnswer;
      }
      case "replace": {
        const made = await services.returns.replace(actor, number);
        return {
          done: `Replacement order ${made.orderNumber} made at $0.00${made.differenceCents > 0 ? `; ${formatCents(made.differenceCents)} refunded` : ""}.`,
        } satisfies ActionAnswer;
      }
    }
    return { done: DONE[input.intent] } satisfies ActionAnswer;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data<ActionAnswer>({ errors: { [field]: error.message } }, { status: error.status });
  }
}

export default function AdminReturn({ loaderData, actionData }: Route.ComponentProps) {
  const found = loaderData;
  const busy = useNavigation().state === "submitting";
  const answer = actionData as ActionAnswer | undefined;
  const errors = answer?.errors;
  return (
    <main id="main" className="console-main">
      <title>{`Return ${found.number} | Console`}</title>
      <p className="console-breadcrumb">
        <Link to="/admin/returns">Returns</Link>
      </p>
      <PageHeader title={`${found.kind} ${found.number}`} />
      <p className="console-notice" role="status">
        {answer?.done ?? ""}
      </p>
      <FieldError fieldId="return-form" message={errors?.form} role="alert" />
      <ReturnFacts found={found} />
      <ReturnLines found={found} errors={errors} busy={busy} />
      <ReturnActions found={found} busy={busy} />
      {found.canDecline ? <DeclineForm status={found.status.key} errors={errors} busy={busy} /> : null}
    </main>
  );
}
