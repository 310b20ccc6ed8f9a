// /admin/promotions/{id}: one promotion's form, Save and, for a code never used, Delete.

import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/promotion-edit";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse, requireIdParam } from "#app/form-request";
import { decimalAmount } from "#shared/money";
import { promotionFormSchema } from "#shared/promotion-schemas";
import {
  PromotionFields,
  toFieldValues,
  type PromotionFieldValues,
} from "#app/features/admin/promotions/promotion-fields";
import { requireConsole } from "./require-operator";

export async function loader({ context, params }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/promotion-edit");
  const promotion = /^[0-9a-f-]{36}$/.test(params.id) ? await services.promotions.get(params.id) : null;
  if (!promotion) throw data("Not found", { status: 404 });
  const values: PromotionFieldValues = {
    code: promotion.code,
    kind: promotion.kind,
    value:
      promotion.kind === "percentage"
        ? String(promotion.value)
        : promotion.kind === "amount"
          ? decimalAmount(promotion.value)
          : "",
    minimumSubtotal: promotion.minimumSubtotalCents > 0 ? decimalAmount(promotion.minimumSubtotalCents) : "",
    startsOn: promotion.startsAt?.slice(0, 10) ?? "",
    endsOn: promotion.endsAt ? new Date(Date.parse(promotion.endsAt) - 86_400_000).toISOString().slice(0, 10) : "",
    usageLimit: promotion.usageLimit === null ? "" : String(promotion.usageLimit),
    status: promotion.status,
    oncePerCustomer: promotion.oncePerCustomer,
  };
  return { id: promotion.id, code: promotion.code, uses: promotion.uses, redemptions: promotion.redemptions, values };
}

/** Save (every change in the audit log), or Delete for a code nobody has used; a used code can be paused instead. */
export async function action({ context, request, params }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/promotion-edit", null);
  const id = requireIdParam(params.id);
  const fields = await readFormOrRefuse(request);
  const { intent, ...typed } = fields;
  const values = toFieldValues(typed);
  try {
    if (intent === "delete") {
      await services.promotions.remove(id, actor);
      return redirect("/admin/promotions");
    }
    const parsed = promotionFormSchema.safeParse(typed);
    if (!parsed.success)
      return data(
        { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values },
        { status: 400 },
      );
    await services.promotions.update(id, parsed.data, actor);
    return redirect(`/admin/promotions?saved=${encodeURIComponent(parsed.data.code)}`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data({ errors: { [field]: error.message }, values }, { status: error.status });
  }
}

export default function PromotionEdit({ loaderData, actionData }: Route.ComponentProps) {
  const isBusy = useNavigation().state !== "idle";
  const { code, uses, redemptions } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>{`${code} | Promotions | Console`}</title>
      <p>
        <Link to="/admin/promotions">Promotions</Link>
      </p>
      <h1>{code}</h1>
      <p>
        {redemptions} order{redemptions === 1 ? "" : "s"} so far; {uses - redemptions} payment
        {uses - redemptions === 1 ? "" : "s"} in progress.
      </p>
      <Form method="post" className="console-form" noValidate key={actionData ? "refused" : "saved"}>
        {actionData?.errors.form ? (
          <p className="console-field__error" role="alert">
            {actionData.errors.form}
          </p>
        ) : null}
        <PromotionFields values={actionData?.values ?? loaderData.values} errors={actionData?.errors} />
        <div className="console-actions">
          <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
            Save
          </button>
          {uses === 0 ? (
            <button
              type="submit"
              name="intent"
              value="delete"
              className="console-link-button"
              disabled={isBusy}
              formNoValidate
            >
              Delete
            </button>
          ) : null}
        </div>
      </Form>
    </main>
  );
}
