// "Forgot your password?": the same answer for every address, known or not, so the page tells nobody who has an
// account.

import { data, Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/forgot-password";
import { requestContext } from "#app/context";
import { AuthPage } from "#app/features/account/auth-page";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { forgotPasswordSchema } from "#shared/account";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { fieldErrorsOf, type FieldErrors } from "#shared/form-errors";
import { useShopName } from "#app/features/shell/use-shop-name";

/**
 * "Forgot your password?": the same answer for every well-formed address, known or not, and in the same time (the
 * service waits out a fixed minimum), so the page tells nobody which addresses have accounts.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, clientIp } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const typed = typeof fields.email === "string" ? fields.email.slice(0, 254) : "";
  const parsed = forgotPasswordSchema.safeParse(fields);
  if (!parsed.success)
    return data({ errors: fieldErrorsOf(parsed.error) as FieldErrors, email: typed, sentTo: null }, { status: 400 });
  try {
    await services.accountFlows.requestPasswordReset(parsed.data.email, clientIp);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return data(
      { errors: { email: error.message } as FieldErrors, email: typed, sentTo: null },
      { status: error.status, headers },
    );
  }
  return { errors: {} as FieldErrors, email: parsed.data.email, sentTo: parsed.data.email };
}

export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : {};
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  const errors = actionData?.errors;
  if (actionData?.sentTo) {
    return (
      <AuthPage title="Check your e-mail" description={`A link to reset your ${shopName} password.`}>
        <p role="status">
          If an account exists for {actionData.sentTo}, we have sent a link to reset its password. The link works once,
          for one hour.
        </p>
        <p>
          <Link to="/login">Back to sign-in</Link>
        </p>
      </AuthPage>
    );
  }
  return (
    <AuthPage title="Password assistance" description={`Reset your ${shopName} password.`}>
      <p>Enter the e-mail address of your account, and we will send you a link to choose a new password.</p>
      <ErrorSummary errors={errors} fieldIds={{ email: "forgot-email" }} />
      <Form method="post" className="login__form" noValidate>
        <label htmlFor="forgot-email">E-mail</label>
        <input
          id="forgot-email"
          name="email"
          type="email"
          autoComplete="username"
          inputMode="email"
          maxLength={254}
          defaultValue={actionData?.email}
          {...invalidFieldProps("forgot-email", errors?.email)}
          required
        />
        <FieldError fieldId="forgot-email" message={errors?.email} />
        <button type="submit" className="button login__sign-in" disabled={navigation.state === "submitting"}>
          Send reset link
        </button>
      </Form>
      <p className="login__notice">
        <Link to="/login">Back to sign-in</Link>
      </p>
    </AuthPage>
  );
}
