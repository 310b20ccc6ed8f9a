// The order page's return form: which units, why, refund or replace, and the return it opened.

import { useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import type { FieldErrors } from "#shared/form-errors";
import { ErrorSummary } from "#app/components/form/error-summary";
import { formatCents } from "#shared/money";
import { ORDER_ACCESS_PARAM, RETURN_REASONS } from "#shared/returns";

export interface ReturnFormLine {
  index: number;
  title: string;
  options: string;
  returnable: number;
  replacements: { variantId: string; label: string; priceCents: number }[];
}

export interface ReturnFormAnswer {
  errors?: FieldErrors;
  quoteCents?: number;
  /** The return just opened: its number and figure. */
  opened?: { number: string; refundCents: number };
  /** What the shopper chose, drawn again after a quote or a refusal (without JavaScript). */
  values?: Record<string, string>;
}

/**
 * "Return or replace items": each returnable line with a quantity, a reason and Refund or "Replace with another
 * option"; "Refund: $x" from the server (the refund function's figure with the return fee); "Request return". Without
 * JavaScript, "Show refund" sends the form to have the figure drawn; with it, the figure follows each change.
 */
export function ReturnForm({
  lines,
  feeCents,
  formKey,
  access,
  answer,
}: {
  lines: ReturnFormLine[];
  feeCents: number;
  formKey: string;
  access: string | null;
  answer: ReturnFormAnswer | undefined;
}) {
  const quoter = useFetcher<ReturnFormAnswer>();
  // The key the form was first drawn with, kept while its figure is asked for (each answer draws the page again).
  const [requestKey] = useState(formKey);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = answer?.errors;
  const values = answer?.values ?? {};
  const quote = quoter.data?.quoteCents ?? answer?.quoteCents ?? 0;
  const fieldIds: Record<string, string> = { form: "return-form" };
  for (const line of lines) {
    for (const name of ["quantity", "reason", "resolution", "replacement"])
      fieldIds[`${name}-${line.index}`] = `return-${name}-${line.index}`;
  }

  const requote = () => {
    if (!formRef.current) return;
    const data = new FormData(formRef.current);
    data.set("intent", "quote");
    void quoter.submit(data, { method: "post" });
  };

  return (
    <Form
      method="post"
      className="return-form"
      id="return-form"
      ref={formRef}
      onChange={requote}
      aria-describedby="return-form-hint"
    >
      <ErrorSummary errors={errors} fieldIds={fieldIds} />
      <p id="return-form-hint" className="return-form__hint">
        {feeCents > 0 ? `A return fee of ${formatCents(feeCents)} is kept from the refund.` : "Returns are free."}
      </p>
      <input type="hidden" name="key" value={requestKey} />
      {access ? <input type="hidden" name={ORDER_ACCESS_PARAM} value={access} /> : null}
      {lines
        .filter((line) => line.returnable > 0)
        .map((line) => {
          const id = (name: string) => `return-${name}-${line.index}`;
          const error = (name: string) => errors?.[`${name}-${line.index}`];
          return (
            <fieldset key={line.index} className="return-form__line" data-testid="return-line">
              <legend>
                {line.title}
                {line.options ? <span className="return-form__options">{` (${line.options})`}</span> : null}
              </legend>
              <div className="return-form__fields">
                <div className="return-form__field">
                  <label htmlFor={id("quantity")}>Quantity to return</label>
                  <select
                    id={id("quantity")}
                    name={`quantity-${line.index}`}
                    defaultValue={values[`quantity-${line.index}`] ?? "0"}
                    {...invalidFieldProps(id("quantity"), error("quantity"))}
                  >
                    {Array.from({ length: line.returnable + 1 }, (_, count) => (
                      <option key={count} value={count}>
                        {count}
                      </option>
                    ))}
                  </select>
                  <FieldError fieldId={id("quantity")} message={error("quantity")} />
                </div>
                <div className="return-form__field">
                  <label htmlFor={id("reason")}>Reason</label>
                  <select
                    id={id("reason")}
                    name={`reason-${line.index}`}
                    defaultValue={values[`reason-${line.index}`] ?? ""}
                    {...invalidFieldProps(id("reason"), error("reason"))}
                  >
                    <option value="">Choose a reason</option>
                    {RETURN_REASONS.map((reason) => (
                      <option key={reason.code} value={reason.code}>
                        {reason.label}
                      </option>
                    ))}
                  </select>
                  <FieldError fieldId={id("reason")} message={error("reason")} />
                </div>
              </div>
              <fieldset
                className="return-form__resolution"
                {...invalidFieldProps(id("resolution"), error("resolution"))}
              >
                <legend className="visually-hidden">{`What you would like for ${line.title}`}</legend>
                <label>
                  <input
                    type="radio"
                    id={id("resolution")}
                    name={`resolution-${line.index}`}
                    value="refund"
                    defaultChecked={values[`resolution-${line.index}`] !== "replace"}
                  />{" "}
                  Refund
                </label>
                {line.replacements.length > 0 ? (
                  <label>
                    <input
                      type="radio"
                      name={`resolution-${line.index}`}
                      value="replace"
                      defaultChecked={values[`resolution-${line.index}`] === "replace"}
                    />{" "}
                    Replace with another option
                  </label>
                ) : null}
                <FieldError fieldId={id("resolution")} message={error("resolution")} />
              </fieldset>
              {line.replacements.length > 0 ? (
                <div className="return-form__field">
                  <label htmlFor={id("replacement")}>Replacement option</label>
                  <select
                    id={id("replacement")}
                    name={`replacement-${line.index}`}
                    defaultValue={values[`replacement-${line.index}`] ?? ""}
                    {...invalidFieldProps(id("replacement"), error("replacement"))}
                  >
                    <option value="">Choose an option</option>
                    {line.replacements.map((option) => (
                      <option key={option.variantId} value={option.variantId}>
                        {`${option.label}, ${formatCents(option.priceCents)}`}
                      </option>
                    ))}
                  </select>
                  <FieldError fieldId={id("replacement")} message={error("replacement")} />
                </div>
              ) : null}
            </fieldset>
          );
        })}
      <FieldError fieldId="return-form" message={errors?.form} role="alert" />
      <p className="return-form__figure" data-testid="return-refund" aria-live="polite">
        {`Refund: ${formatCents(quote)}`}
      </p>
      <div className="return-form__buttons">
        <button type="submit" name="intent" value="quote" className="button button--secondary">
          Show refund
        </button>
        <button type="submit" name="intent" value="request" className="button">
          Request return
        </button>
      </div>
    </Form>
  );
}
