// The form an e-mailed link opens to set a password (a reset, a staff invitation), carrying the link's token.

import { Form } from "react-router";
import { ErrorSummary } from "#app/components/form/error-summary";
import type { FieldErrors } from "#shared/form-errors";
import { PasswordField } from "./password-field";

/** The form an e-mailed link opens to set a password (a reset, a staff invitation): the link's token, twice the password. */
export function NewPasswordForm({
  token,
  errors,
  idPrefix,
  label,
  confirmLabel,
  button,
  isBusy,
}: {
  token: string;
  errors: FieldErrors | undefined;
  idPrefix: string;
  label: string;
  confirmLabel: string;
  button: string;
  isBusy: boolean;
}) {
  return (
    <>
      <ErrorSummary
        errors={errors}
        fieldIds={{ password: `${idPrefix}-password`, confirmPassword: `${idPrefix}-confirm` }}
      />
      <Form method="post" className="login__form" noValidate>
        <input type="hidden" name="token" value={token} />
        <PasswordField
          id={`${idPrefix}-password`}
          name="password"
          label={label}
          autoComplete="new-password"
          error={errors?.password}
        />
        <PasswordField
          id={`${idPrefix}-confirm`}
          name="confirmPassword"
          label={confirmLabel}
          autoComplete="new-password"
          error={errors?.confirmPassword}
        />
        <button type="submit" className="button login__sign-in" disabled={isBusy}>
          {button}
        </button>
      </Form>
    </>
  );
}
