// The payment page's promotion code: "Apply" and "Remove".

import { useFetcher } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** What the payment page's action answers to "Apply" and "Remove". */
export type PromotionActionData = { promotion: { ok: true } | { ok: false; error: string; code: string } };

interface PromotionFormProps {
  /** The code the totals are priced with, if any. */
  appliedCode: string | null;
  /** A code taken off because it no longer applies, and why. */
  removed: { code: string; message: string } | null;
  /** The page's own action answer (without JavaScript the form posts to it and the page comes back with it). */
  actionData: unknown;
}

/**
 * "Promotion code" with "Apply", or the applied code with "Remove": plain form posts to the payment page's action,
 * sent by a fetcher once the page runs its JavaScript. A refusal is the sentence under the field; nothing changes.
 */
export function PromotionForm({ appliedCode, removed, actionData }: PromotionFormProps) {
  const fetcher = useFetcher<PromotionActionData>();
  const answer = fetcher.data ?? (isPromotionAnswer(actionData) ? actionData : undefined);
  const refusal = answer && !answer.promotion.ok ? answer.promotion : null;
  const isBusy = fetcher.state !== "idle";
  return (
    <div className="promotion" data-testid="promotion">
      {appliedCode ? (
        // Its button is the totals' "Remove" (RemovePromotionButton), beside "Promotion applied": the totals sit in
        // the payment's own form, where another form cannot.
        <fetcher.Form id={REMOVE_PROMOTION_FORM} method="post" preventScrollReset hidden>
          <input type="hidden" name="intent" value="remove-promotion" />
        </fetcher.Form>
      ) : (
        <fetcher.Form method="post" className="promotion__form" preventScrollReset>
          <input type="hidden" name="intent" value="apply-promotion" />
          <label htmlFor="promotion-code">Promotion code</label>
          <div className="promotion__row">
            <input
              id="promotion-code"
              name="code"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              maxLength={32}
              defaultValue={refusal?.code ?? ""}
              {...invalidFieldProps("promotion-code", refusal?.error, removed && !refusal ? "promotion-removed" : "")}
            />
            <button type="submit" className="button" disabled={isBusy}>
              Apply
            </button>
          </div>
          <FieldError fieldId="promotion-code" message={refusal?.error} role="alert" />
        </fetcher.Form>
      )}
      {removed && !refusal ? (
        <p id="promotion-removed" className="promotion__removed" role="status">
          {removed.code} was removed: {removed.message}
        </p>
      ) : null}
    </div>
  );
}

/** "Remove", shown with "Promotion applied: {CODE} -$x" in the totals; it sends the promotion form's removal. */
export function RemovePromotionButton() {
  return (
    <button type="submit" form={REMOVE_PROMOTION_FORM} className="order-totals__remove">
      Remove
    </button>
  );
}

const REMOVE_PROMOTION_FORM = "remove-promotion";

function isPromotionAnswer(value: unknown): value is PromotionActionData {
  return typeof value === "object" && value !== null && "promotion" in value;
}
