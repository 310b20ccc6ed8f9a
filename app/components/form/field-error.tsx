/**
 * The one way the shop and the console show what is wrong with a form. A form's errors are a plain map from field
 * name to its sentence ("form" for the form as a whole), as the server's mapping of a refused request makes it
 * (shared/form-errors.ts). Anchors follow one rule: a field's error has the id `<field id>-error`, its input names it
 * by aria-describedby and carries aria-invalid, and the summary's entry links to `#<field id>` (error-summary.tsx).
 * @module
 */

/** The id of a field's error sentence, from the id of the field's input. */
export function errorIdOf(fieldId: string): string {
  return `${fieldId}-error`;
}

/**
 * What an input carries for its error: aria-invalid while there is one, and aria-describedby naming its hints (always)
 * and its error (while there is one).
 */
export function invalidFieldProps(
  fieldId: string,
  message: string | undefined,
  ...hintIds: string[]
): { "aria-invalid": true | undefined; "aria-describedby": string | undefined } {
  const describedBy = [...hintIds, message ? errorIdOf(fieldId) : ""].filter(Boolean).join(" ");
  return { "aria-invalid": message ? true : undefined, "aria-describedby": describedBy || undefined };
}

/** The sentence under a field, named by the field's aria-describedby (invalidFieldProps). */
export function FieldError({
  fieldId,
  message,
  className,
  role,
}: {
  fieldId: string;
  message: string | undefined;
  className?: string;
  role?: "alert";
}) {
  if (!message) return null;
  return (
    <p id={errorIdOf(fieldId)} className={className ? `field-error ${className}` : "field-error"} role={role}>
      {message}
    </p>
  );
}
