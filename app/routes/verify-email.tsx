// The welcome e-mail's link, which confirms the account's address.

import { Link, redirect } from "react-router";
import type { Route } from "./+types/verify-email";
import { requestContext } from "#app/context";
import { AuthPage } from "#app/features/account/auth-page";
import { AppError } from "#shared/errors";
import { signInPath } from "#shared/local-path";
import { useShopName } from "#app/features/shell/use-shop-name";

/** The welcome e-mail's link: following it confirms the address (a second visit finds the link used). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const isConfirmed = token.length <= 100 && (await services.accountFlows.verifyEmail(token));
  const account = shopper.user ? await services.accountFlows.getAccount(shopper.user.id) : null;
  return { isConfirmed, isSignedIn: account !== null, isAlreadyVerified: account?.isEmailVerified ?? false };
}

/** "Send again" (from the notice on every page, or the account page): a new link; back to the account page, which says so. */
export async function action({ context }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  if (!shopper.user) return redirect(signInPath("/account"));
  try {
    await services.accountFlows.resendVerification(shopper.user.id);
  } catch (error) {
    if (error instanceof AppError && error.code === "TOO_MANY_ATTEMPTS")
      return redirect("/account?notice=verification-limit");
    throw error;
  }
  return redirect("/account?notice=verification-sent");
}

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  if (loaderData.isConfirmed || loaderData.isAlreadyVerified) {
    return (
      <AuthPage title="E-mail confirmed" description={`Your ${shopName} e-mail address is confirmed.`}>
        <p role="status">Thank you: your e-mail address is confirmed.</p>
        <p>
          <Link className="button" to="/">
            Continue shopping
          </Link>
        </p>
      </AuthPage>
    );
  }
  return (
    <AuthPage
      title="This link can no longer be used"
      description="An e-mail confirmation link that has been used or has expired."
    >
      <p role="alert">This confirmation link has already been used, has expired or is not complete.</p>
      <p>
        {loaderData.isSignedIn ? (
          <Link to="/account">Go to your account to send a new link</Link>
        ) : (
          <Link to={signInPath("/account")}>Sign in to send a new link</Link>
        )}
      </p>
    </AuthPage>
  );
}
