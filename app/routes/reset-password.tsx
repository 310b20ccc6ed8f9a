// The page a password reset link opens.

import { data, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/reset-password";
import { requestContext } from "#app/context";
import { AuthPage } from "#app/features/account/auth-page";
import { NewPasswordForm } from "#app/features/account/new-password-form";
import { resetPasswordSchema } from "#shared/account";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { fieldErrorsOf, type FieldErrors } from "#shared/form-errors";
import { useShopName } from "#app/features/shell/use-shop-name";

/** The page a reset link opens: the form while the link is live, else a clear page with a way to ask again. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const isLive = token.length <= 100 && (await services.accountFlows.isResetLinkLive(token));
  return data({ token: isLive ? token : "", isLive }, { status: isLive ? 200 : 410 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const parsed = resetPasswordSchema.safeParse(fields);
  if (!parsed.success)
    return data({ errors: fieldErrorsOf(parsed.error) as FieldErrors, isDead: false }, { status: 400 });
  try {
    const next = await services.accountFlows.resetPassword(parsed.data.token, parsed.data.password, shopper.session);
    // With two-step verification on, the new password signs in only with its code, on the sign-in page.
    if (!next) return redirect("/login?notice=password-reset");
    shopper.replaceSession(next);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") return data({ errors: {} as FieldErrors, isDead: true }, { status: 410 });
    return data({ errors: { password: error.message } as FieldErrors, isDead: false }, { status: error.status });
  }
  return redirect("/account?notice=password-reset");
}

function DeadLink() {
  return (
    <AuthPage
      title="This link can no longer be used"
      description="A password reset link that has been used or has expired."
    >
      <p role="alert">
        This password reset link has already been used, has expired or is not complete. Links work once, for one hour.
      </p>
      <p>
        <Link className="button" to="/forgot-password">
          Send a new link
        </Link>
      </p>
      <p className="login__notice">
        <Link to="/login">Back to sign-in</Link>
      </p>
    </AuthPage>
  );
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  if (!loaderData.isLive || actionData?.isDead) return <DeadLink />;
  const errors = actionData?.errors;
  return (
    <AuthPage title="Choose a new password" description={`Set a new password for your ${shopName} account.`}>
      <p>At least 12 characters; a few words that have nothing to do with each other make a strong password.</p>
      <NewPasswordForm
        token={loaderData.token}
        errors={errors}
        idPrefix="reset"
        label="New password"
        confirmLabel="Confirm new password"
        button="Set new password"
        isBusy={navigation.state === "submitting"}
      />
    </AuthPage>
  );
}
