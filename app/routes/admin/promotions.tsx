// /admin/promotions: every promotion code with its uses, and the form of a new one.

import { data, Form, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/promotions";
import { fieldErrorsOf, UNKNOWN_FIELDS_CONSOLE } from "#shared/form-errors";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatCents } from "#shared/money";
import { promotionFormSchema } from "#shared/promotion-schemas";
import { describePromotionValue, PROMOTION_KIND_LABELS } from "#shared/promotions";
import {
  datesOf,
  EMPTY_PROMOTION,
  PromotionFields,
  toFieldValues,
} from "#app/features/admin/promotions/promotion-fields";
import { PromotionTable } from "#app/features/admin/promotions/promotion-table";
import { requireConsole } from "./require-operator";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/promotions");
  const promotions = await services.promotions.list();
  return {
    saved: new URL(request.url).searchParams.get("saved")?.slice(0, 32) ?? null,
    promotions: promotions.map((promotion) => ({
      id: promotion.id,
      code: promotion.code,
      type: PROMOTION_KIND_LABELS[promotion.kind],
      value: describePromotionValue(promotion.kind, promotion.value),
      minimum: promotion.minimumSubtotalCents > 0 ? formatCents(promotion.minimumSubtotalCents) : "–",
      uses: `${promotion.uses} / ${promotion.usageLimit ?? "∞"}`,
      status: promotion.status,
      dates: datesOf(promotion.startsAt, promotion.endsAt),
    })),
  };
}

/** "New promotion": saved and listed, or drawn again with what was typed and an error under each refused field. */
export async function action({ context, request }: Route.ActionArgs) {
  const { actor, services } = requireConsole(context, "routes/admin/promotions", null);
  const fields = await readFormOrRefuse(request);
  // The submit button's name is not a field of the promotion.
  const typed = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== "intent"));
  const values = toFieldValues(typed);
  const parsed = promotionFormSchema.safeParse(typed);
  if (!parsed.success)
    return data(
      { errors: fieldErrorsOf(parsed.error, { unknownFields: UNKNOWN_FIELDS_CONSOLE }), values },
      { status: 400 },
    );
  try {
    await services.promotions.create(parsed.data, actor);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data({ errors: { [field]: error.message }, values }, { status: error.status });
  }
  return redirect(`/admin/promotions?saved=${encodeURIComponent(parsed.data.code)}`);
}

export default function Promotions({ loaderData, actionData }: Route.ComponentProps) {
  const isBusy = useNavigation().state !== "idle";
  const { saved } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Promotions | Console</title>
      <h1>Promotions</h1>
      <p className="console-notice" role="status">
        {saved ? `${saved} saved.` : ""}
      </p>
      <PromotionTable promotions={loaderData.promotions} />
      <section className="console-section" aria-labelledby="new-promotion-heading">
        <h2 id="new-promotion-heading">New promotion</h2>
        <Form
          method="post"
          className="console-form"
          noValidate
          key={actionData ? "refused" : String(loaderData.promotions.length)}
        >
          {actionData?.errors.form ? <p className="console-field__error">{actionData.errors.form}</p> : null}
          <PromotionFields values={actionData?.values ?? EMPTY_PROMOTION} errors={actionData?.errors} />
          <div>
            <button type="submit" className="console-button console-button--primary" disabled={isBusy}>
              Save
            </button>
          </div>
        </Form>
      </section>
    </main>
  );
}
