import { data, Form, Link, redirect, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/login";
import { requestContext } from "../context";
import { Wordmark } from "../components/ui/icons";
import { signInFormSchema } from "../../shared/account";
import { AppError } from "../../shared/errors";
import { readFormOrRefuse } from "../form-request";
import { isLocalPath, RETURN_TO_PARAM } from "../../shared/local-path";

/**
 * "Sign In" and "Create your account" share one form. Success of either goes signed in to the page that sent the
 * shopper here (`?returnTo=`, a path on this site), or home; a failure comes back here with the reason in an alert
 * and the e-mail still filled in.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const email = typeof fields.email === "string" ? fields.email.slice(0, 254) : "";
  const parsed = signInFormSchema.safeParse(fields);
  if (!parsed.success) {
    return data({ error: parsed.error.issues[0]?.message ?? "Please check the form and try again.", email }, { status: 400 });
  }
  const { returnTo, ...credentials } = parsed.data;
  try {
    const next = await services.signInFlow.signIn(credentials, { ip: clientIp, current: shopper.session });
    shopper.replaceSession(next);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return data({ error: error.message, email }, { status: error.status, headers });
  }
  return redirect(returnTo ?? "/");
}

/**
 * A page's response carries only the headers its route returns from here, not those of its action's data(): the
 * Retry-After of a refused attempt has to be passed on by hand.
 */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : {};
}

export default function Login({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  // Carried through the form only when it is a path on this site; a link naming anything else just signs in.
  const [searchParams] = useSearchParams();
  const asked = searchParams.get(RETURN_TO_PARAM);
  const returnTo = asked !== null && isLocalPath(asked) ? asked : undefined;
  return (
    <main id="main" className="login">
      <title>Sign in | Storefront</title>
      <meta name="description" content="Sign in to Storefront or create an account with your e-mail address." />
      <Link to="/" className="login__logo" aria-label="Storefront home">
        <Wordmark />
      </Link>
      <div className="login__box">
        <h1 className="login__title">Sign-in</h1>
        <div role="alert" className={actionData?.error ? "login__error" : "login__error login__error--empty"}>
          {actionData?.error}
        </div>
        {/* noValidate: the shop's own rules and messages apply, the same with or without JavaScript. */}
        <Form method="post" className="login__form" noValidate>
          {returnTo ? <input type="hidden" name={RETURN_TO_PARAM} value={returnTo} /> : null}
          <label htmlFor="login-email">E-mail</label>
          <input id="login-email" name="email" type="email" autoComplete="username" inputMode="email" maxLength={254} defaultValue={actionData?.email} required />
          <label htmlFor="login-password">Password</label>
          <input id="login-password" name="password" type="password" autoComplete="current-password" maxLength={128} required />
          <button type="submit" name="intent" value="sign-in" className="button login__sign-in" disabled={isSubmitting}>
            Sign In
          </button>
          <p className="login__forgot">
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
          <p className="login__notice">
            By signing in or creating an account you agree to Storefront&apos;s <Link to="/conditions">Conditions of Use &amp; Sale</Link>.
            Please see our <Link to="/privacy">Privacy Notice</Link>.
          </p>
          <button type="submit" name="intent" value="register" className="login__register" disabled={isSubmitting}>
            Create your account
          </button>
        </Form>
      </div>
    </main>
  );
}
