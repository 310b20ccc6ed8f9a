// A labelled password input with its error under it, shared by the account pages' forms.

import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** A labelled password input with its error under it, named by aria-describedby while there is one. */
export function PasswordField({
  id,
  name,
  label,
  autoComplete,
  error,
}: {
  id: string;
  name: string;
  label: string;
  autoComplete: string;
  error: string | undefined;
}) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="password"
        autoComplete={autoComplete}
        maxLength={128}
        {...invalidFieldProps(id, error)}
        required
      />
      <FieldError fieldId={id} message={error} />
    </>
  );
}
