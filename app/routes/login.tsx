import { data, Form, Link, redirect, redirectDocument, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/login";
import { requestContext } from "#app/context";
import { Wordmark } from "#app/components/ui/icons";
import { signInFormSchema } from "#shared/account";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { isLocalPath, RETURN_TO_PARAM } from "#shared/local-path";
import { BASKET_REMINDERS_LABEL } from "#shared/recovery-labels";
import { useShopName } from "#app/features/shell/use-shop-name";

/**
 * "Sign In" and "Create your account" share one form. Success of either goes signed in to the page that sent the
 * shopper here (`?returnTo=`, a path on this site), or home; a failure comes back here with the reason in an alert
 * and the e-mail still filled in.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const email = typeof fields.email === "string" ? fields.email.slice(0, 254) : "";
  const intent = fields.intent === "register" ? "register" : "sign-in";
  const parsed = signInFormSchema.safeParse(fields);
  if (!parsed.success) {
    return data(
      { error: parsed.error.issues[0]?.message ?? "Please check the form and try again.", email, intent },
      { status: 400 },
    );
  }
  const { returnTo, basketReminders, ...credentials } = parsed.data;
  let isOperator = false;
  try {
    const next = await services.signInFlow.signIn(credentials, { ip: clientIp, current: shopper.session });
    shopper.replaceSession(next);
    isOperator = next.session.user?.isOperator === true;
    if (basketReminders && next.session.user) await services.reminderConsent.setForAccount(next.session.user, true);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return data({ error: error.message, email, intent }, { status: error.status, headers });
  }
  // An operator's pages come from the build with the console in it (server/http/page-handlers.ts): the page this
  // browser started from knows only the shop's routes, so the next page is loaded whole, with the console's.
  return isOperator ? redirectDocument(returnTo ?? "/") : redirect(returnTo ?? "/");
}

/**
 * A page's response carries only the headers its route returns from here, not those of its action's data() or
 * redirect: what the browser needs has to be passed on by hand.
 */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  const passed = new Headers();
  // Retry-After of a refused attempt; and redirectDocument's mark, which tells the browser to load the next page whole.
  for (const name of ["Retry-After", "X-Remix-Reload-Document"]) {
    const value = actionHeaders.get(name);
    if (value) passed.set(name, value);
  }
  return passed;
}

export default function Login({ actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  // "Create your account" pressed (being sent, or come back with a reason): the page is about registering.
  const isRegistering = (isSubmitting ? navigation.formData?.get("intent") : actionData?.intent) === "register";
  // Carried through the form only when it is a path on this site; a link naming anything else just signs in.
  const [searchParams] = useSearchParams();
  const asked = searchParams.get(RETURN_TO_PARAM);
  const returnTo = asked !== null && isLocalPath(asked) ? asked : undefined;
  return (
    <main id="main" className="login">
      <title>{`Sign in | ${shopName}`}</title>
      <meta name="description" content={`Sign in to ${shopName} or create an account with your e-mail address.`} />
      <Link to="/" className="login__logo" aria-label={`${shopName} home`}>
        <Wordmark />
      </Link>
      <div className="login__box">
        <h1 className="login__title">{isRegistering ? "Create account" : "Sign-in"}</h1>
        <div role="alert" className={actionData?.error ? "login__error" : "login__error login__error--empty"}>
          {actionData?.error}
        </div>
        {/* noValidate: the shop's own rules and messages apply, the same with or without JavaScript. */}
        <Form method="post" className="login__form" noValidate>
          {returnTo ? <input type="hidden" name={RETURN_TO_PARAM} value={returnTo} /> : null}
          <label htmlFor="login-email">E-mail</label>
          <input
            id="login-email"
            name="email"
            type="email"
            autoComplete="username"
            inputMode="email"
            maxLength={254}
            defaultValue={actionData?.email}
            required
          />
          <label htmlFor="login-password">Password</label>
          <input
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            maxLength={128}
            required
          />
          <button type="submit" name="intent" value="sign-in" className="button login__sign-in" disabled={isSubmitting}>
            Sign In
          </button>
          <p className="login__forgot">
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
          <p className="login__notice">
            By signing in or creating an account you agree to {shopName}&apos;s{" "}
            <Link to="/conditions">Conditions of Use</Link>. Please see our <Link to="/privacy">Privacy Notice</Link>.
          </p>
          <label className="consent login__consent">
            <input type="checkbox" name="basketReminders" />
            {BASKET_REMINDERS_LABEL}
          </label>
          <button type="submit" name="intent" value="register" className="login__register" disabled={isSubmitting}>
            Create your account
          </button>
        </Form>
      </div>
    </main>
  );
}
