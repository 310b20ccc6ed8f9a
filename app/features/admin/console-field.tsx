import { FieldError } from "./field-error";

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
  const errorId = error ? `error-${form}-${name}` : "";
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const common = { id, name, defaultValue, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy } as const;
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={hintId} className="console-hint">
          {hint}
        </p>
      ) : null}
      {multiline ? <textarea {...common} rows={3} maxLength={2000} /> : <input {...common} maxLength={500} inputMode={inputMode} autoComplete="off" />}
      <FieldError id={errorId} message={error} />
    </div>
  );
}
