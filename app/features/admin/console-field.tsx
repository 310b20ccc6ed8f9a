// The console's form pieces: its error summary's title, the field ids summaries link to, and a labelled field for pages
// with several forms.

import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** The console's error summary says it its own way (app/components/form/error-summary.tsx draws it). */
export const CONSOLE_SUMMARY_TITLE = "Please correct the following";

/**
 * The inputs' ids of the named fields, for an error summary's links: a console form's inputs are `field-<name>` (or
 * `field-<form>-<name>`, ConsoleField's, on a page of several forms).
 */
export function fieldIdsOf(names: readonly string[], form?: string): Record<string, string> {
  const prefix = form ? `field-${form}-` : "field-";
  return Object.fromEntries(names.map((name) => [name, `${prefix}${name}`]));
}

/**
 * One labelled field of a console form whose page holds several forms: ids carry the form's key, so every label,
 * error and aria link is unique on the page. The error (if any) is under the field, named by aria-describedby.
 */
export function ConsoleField({
  form,
  name,
  label,
  hint,
  error,
  defaultValue,
  multiline = false,
  inputMode,
}: {
  form: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
  defaultValue?: string;
  multiline?: boolean;
  inputMode?: "decimal" | "text";
}) {
  const id = `field-${form}-${name}`;
  const hintId = hint ? `hint-${form}-${name}` : "";
  const common = { id, name, defaultValue, ...invalidFieldProps(id, error, hintId) } as const;
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="console-hint">
          {hint}
        </p>
      ) : null}
      {multiline ? (
        <textarea {...common} rows={3} maxLength={2000} />
      ) : (
        <input {...common} maxLength={500} inputMode={inputMode} autoComplete="off" />
      )}
      <FieldError fieldId={id} message={error} />
    </div>
  );
}
