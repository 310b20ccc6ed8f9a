// The page a staff invitation's link opens, where the invitee sets their password.

import { data, Link, redirect, redirectDocument, useNavigation } from "react-router";
import type { Route } from "./+types/staff-invitation";
import { requestContext } from "#app/context";
import { AuthPage } from "#app/features/account/auth-page";
import { useShopName } from "#app/features/shell/use-shop-name";
import { NewPasswordForm } from "#app/features/account/new-password-form";
import { resetPasswordSchema } from "#shared/account";
import { consoleHomeOf } from "#shared/console-access";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { fieldErrorsOf, type FieldErrors } from "#shared/form-errors";

/** The page a staff invitation's link opens: the password form while the link is live, else why not. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const invitation = token.length <= 100 ? await services.accountFlows.findLiveInvitation(token) : null;
  return data({ token: invitation ? token : "", email: invitation?.email ?? "" }, { status: invitation ? 200 : 410 });
}

/** Sets the password, signs this browser in and opens the console (as a document: its routes come with it). */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const parsed = resetPasswordSchema.safeParse(fields);
  if (!parsed.success)
    return data({ errors: fieldErrorsOf(parsed.error) as FieldErrors, isDead: false }, { status: 400 });
  let home = "/";
  try {
    const next = await services.accountFlows.acceptStaffInvitation(
      parsed.data.token,
      parsed.data.password,
      shopper.session,
    );
    // An account with two-step verification on signs in with its code: the link set the password only.
    if (!next) return redirect("/login?notice=password-reset");
    shopper.replaceSession(next);
    // The console's first page this member may open, as their new session reads their role.
    const console = (await services.sessions.findSession(next.token))?.user?.console;
    if (console) home = consoleHomeOf(console);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") return data({ errors: {} as FieldErrors, isDead: true }, { status: 410 });
    return data({ errors: { password: error.message } as FieldErrors, isDead: false }, { status: error.status });
  }
  return redirectDocument(home);
}

export default function StaffInvitation({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  if (!loaderData.token || actionData?.isDead)
    return (
      <AuthPage
        title="This link can no longer be used"
        description="A staff invitation that has been used or has expired."
      >
        <p role="alert">
          This invitation link has already been used, has expired or is not complete. Links work once, for 72 hours: ask
          the shop's owner for a new invitation.
        </p>
        <p className="login__notice">
          <Link to="/login">Go to sign-in</Link>
        </p>
      </AuthPage>
    );
  const errors = actionData?.errors;
  return (
    <AuthPage title="Set your password" description={`Accept your invitation to run ${shopName}.`}>
      <p>
        You are invited to the shop's console as <strong>{loaderData.email}</strong>. Choose a password of at least 12
        characters; a few words that have nothing to do with each other make a strong password.
      </p>
      <NewPasswordForm
        token={loaderData.token}
        errors={errors}
        idPrefix="invite"
        label="Password"
        confirmLabel="Confirm password"
        button="Set password"
        isBusy={navigation.state === "submitting"}
      />
    </AuthPage>
  );
}
