// The account page's "Two-step verification": setting it up with a QR code, confirming it with a first code, and the
// recovery codes shown once.

import { Form } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/**
 * "Two-step verification" on the account page: set it up (a QR code the shop draws itself, and the secret as text for
 * typing), confirm it with a first code, and the ten recovery codes, shown this once. Plain forms: no script needed.
 */
export function TwoStepSection({
  status,
  answer,
  isSubmitting,
}: {
  status: {
    isOn: boolean;
    recoveryCodesLeft: number;
    pending: { secret: string; qr: { size: number; path: string } } | null;
  };
  answer: { errors: Partial<Record<string, string>>; done: string | null; recoveryCodes?: string[] } | undefined;
  isSubmitting: boolean;
}) {
  const codeError = answer?.errors.code;
  return (
    <section className="account__section" id="two-step" aria-labelledby="account-two-step">
      <h2 id="account-two-step">Two-step verification</h2>
      {answer?.recoveryCodes ? (
        <>
          <p role="status" className="account__notice">
            {answer.done}
          </p>
          <h3>Your recovery codes</h3>
          <p>
            Keep these somewhere safe, away from your phone: each signs you in once if you lose it. They are shown only
            this once.
          </p>
          <ul className="two-step__codes" aria-label="Recovery codes">
            {answer.recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </>
      ) : status.isOn ? (
        <p>
          <strong>On.</strong> Signing in asks for a code from your authenticator app after your password.{" "}
          {status.recoveryCodesLeft === 1
            ? "1 recovery code is left."
            : `${status.recoveryCodesLeft} recovery codes are left.`}
        </p>
      ) : status.pending ? (
        <>
          <p>
            Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis
            and others), or type the key below into it. Then enter the 6-digit code it shows.
          </p>
          <svg
            className="two-step__qr"
            viewBox={`0 0 ${status.pending.qr.size} ${status.pending.qr.size}`}
            role="img"
            aria-label="QR code for your authenticator app"
            shapeRendering="crispEdges"
          >
            <rect width="100%" height="100%" fill="#fff" />
            <path d={status.pending.qr.path} fill="#000" />
          </svg>
          <p>
            Key: <code className="two-step__secret">{status.pending.secret.replace(/(.{4})(?=.)/g, "$1 ")}</code>
          </p>
          <Form method="post" className="account__form" noValidate>
            <label htmlFor="two-step-code">Enter the 6-digit code</label>
            <TwoStepCodeInput {...invalidFieldProps("two-step-code", codeError)} />
            <FieldError fieldId="two-step-code" message={codeError} />
            <FieldError fieldId="two-step-form" message={answer?.errors.form} />
            <button type="submit" name="intent" value="two-step-confirm" className="button" disabled={isSubmitting}>
              Turn on two-step verification
            </button>
          </Form>
        </>
      ) : (
        <Form method="post">
          <p>
            Off. With it on, signing in asks for a code from an app on your phone as well as your password, so a stolen
            password alone does not open your account.
          </p>
          <FieldError fieldId="two-step-begin" message={answer?.errors.form} />
          <button type="submit" name="intent" value="two-step-begin" className="button" disabled={isSubmitting}>
            Set up two-step verification
          </button>
        </Form>
      )}
    </section>
  );
}

/** The code field, as the setup and the sign-in page share it: digits on a phone's keypad, the app's code offered. */
export function TwoStepCodeInput(props: { "aria-describedby"?: string; "aria-invalid"?: true; autoFocus?: boolean }) {
  return (
    <input
      id="two-step-code"
      name="code"
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9 ]*"
      maxLength={7}
      required
      {...props}
    />
  );
}
