// The promotion form's fields, shared by the new promotion on the list and a promotion's own page, drawn again as typed
// when refused.

import { PROMOTION_KIND_LABELS, type PromotionKindName } from "#shared/promotions";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** The promotion form's fields as typed (a refusal draws them again with what was typed). */
export type PromotionFieldValues = Record<
  "code" | "kind" | "value" | "minimumSubtotal" | "startsOn" | "endsOn" | "usageLimit" | "status",
  string
> & { oncePerCustomer: boolean };

export const EMPTY_PROMOTION: PromotionFieldValues = {
  code: "",
  kind: "percentage",
  value: "",
  minimumSubtotal: "",
  startsOn: "",
  endsOn: "",
  usageLimit: "",
  status: "active",
  oncePerCustomer: false,
};

/** Field names to labels, for the error summary's links and the audit's readers. */
export const PROMOTION_FIELD_LABELS: Record<keyof PromotionFieldValues, string> = {
  code: "Code",
  kind: "Type",
  value: "Value",
  minimumSubtotal: "Minimum subtotal",
  startsOn: "Starts",
  endsOn: "Ends",
  usageLimit: "Total uses",
  oncePerCustomer: "Once per customer",
  status: "Status",
};

/**
 * "Code", "Type", "Value", "Minimum subtotal", "Starts", "Ends", "Total uses", "Once per customer" and "Status": the
 * fields of "New promotion" and of a promotion's page. Each error is under its field, named by aria-describedby.
 */
export function PromotionFields({
  values,
  errors,
}: {
  values: PromotionFieldValues;
  errors: Record<string, string> | undefined;
}) {
  const field = (name: string) => ({
    id: `field-${name}`,
    name,
    ...invalidFieldProps(`field-${name}`, errors?.[name], hints[name] ? `hint-${name}` : ""),
  });
  const hints: Record<string, string> = {
    code: "Letters, digits and hyphens, 3 to 32 long. Shoppers may type it in any case.",
    value: "A percentage from 1 to 100, or an amount in dollars and cents. Not used for free delivery.",
    minimumSubtotal: "The items' total before the discount. Empty: no minimum.",
    startsOn: "Empty: from now. Dates are in UTC.",
    endsOn: "The last day it works. Empty: no end.",
    usageLimit: "Orders in all, counting payments in progress. Empty: no limit.",
  };
  const hint = (name: string) =>
    hints[name] ? (
      <p id={`hint-${name}`} className="console-hint">
        {hints[name]}
      </p>
    ) : null;
  const text = (
    name: keyof PromotionFieldValues,
    type: "text" | "date" = "text",
    inputMode?: "decimal" | "numeric",
  ) => (
    <div className="console-field">
      <label htmlFor={`field-${name}`}>{PROMOTION_FIELD_LABELS[name]}</label>
      {hint(name)}
      <input
        {...field(name)}
        type={type}
        defaultValue={String(values[name])}
        inputMode={inputMode}
        autoComplete="off"
        maxLength={40}
      />
      <FieldError fieldId={`field-${name}`} message={errors?.[name]} />
    </div>
  );
  return (
    <>
      {text("code")}
      <div className="console-field">
        <label htmlFor="field-kind">Type</label>
        <select {...field("kind")} defaultValue={values.kind}>
          {(Object.keys(PROMOTION_KIND_LABELS) as PromotionKindName[]).map((kind) => (
            <option key={kind} value={kind}>
              {PROMOTION_KIND_LABELS[kind]}
            </option>
          ))}
        </select>
        <FieldError fieldId="field-kind" message={errors?.kind} />
      </div>
      {text("value", "text", "decimal")}
      {text("minimumSubtotal", "text", "decimal")}
      {text("startsOn", "date")}
      {text("endsOn", "date")}
      {text("usageLimit", "text", "numeric")}
      <div className="console-field console-field--check">
        <label>
          <input
            type="checkbox"
            name="oncePerCustomer"
            defaultChecked={values.oncePerCustomer}
            aria-describedby="hint-oncePerCustomer"
          />{" "}
          Once per customer
        </label>
        <p id="hint-oncePerCustomer" className="console-hint">
          One order per account; for guests, once per e-mail address (capitals and a +tag count as the same address).
        </p>
      </div>
      <div className="console-field">
        <label htmlFor="field-status">Status</label>
        <select {...field("status")} defaultValue={values.status}>
          <option value="active">Active</option>
          <option value="paused">Paused</option>
        </select>
        <FieldError fieldId="field-status" message={errors?.status} />
      </div>
    </>
  );
}

/** The form's fields as typed, for drawing a refused form again. */
export function toFieldValues(typed: Record<string, string>): PromotionFieldValues {
  const text = (name: keyof Omit<PromotionFieldValues, "oncePerCustomer">) =>
    (typed[name] ?? EMPTY_PROMOTION[name]).slice(0, 100);
  return {
    code: text("code"),
    kind: text("kind"),
    value: text("value"),
    minimumSubtotal: text("minimumSubtotal"),
    startsOn: text("startsOn"),
    endsOn: text("endsOn"),
    usageLimit: text("usageLimit"),
    status: text("status"),
    oncePerCustomer: typed.oncePerCustomer === "on",
  };
}

/** "From 2026-12-01 to 2026-12-31" in UTC days (Ends is the last day the code works). */
export function datesOf(startsAt: string | null, endsAt: string | null): string {
  const starts = startsAt?.slice(0, 10) ?? null;
  const lastDay = endsAt ? new Date(Date.parse(endsAt) - 86_400_000).toISOString().slice(0, 10) : null;
  if (starts && lastDay) return `${starts} to ${lastDay}`;
  if (starts) return `From ${starts}`;
  if (lastDay) return `Until ${lastDay}`;
  return "Always";
}
