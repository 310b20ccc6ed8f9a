// /login: signing in (and the second step) or registering, in one page's action.

import { data, Form, Link, redirect, redirectDocument, useNavigation, useSearchParams } from "react-router";
import type { Route } from "./+types/login";
import { requestContext, type RequestContext } from "#app/context";
import { Wordmark } from "#app/components/ui/icons";
import { signInFormSchema } from "#shared/account";
import { TWO_STEP_INTENTS, twoStepSignInSchema } from "#shared/two-step";
import { TwoStepCodeInput } from "#app/features/account/two-step-section";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { isLocalPath, RETURN_TO_PARAM } from "#shared/local-path";
import { BASKET_REMINDERS_LABEL } from "#shared/recovery-labels";
import { useShopName } from "#app/features/shell/use-shop-name";

type Answer = {
  error: string | null;
  email: string;
  intent: string;
  /** The password was right and the account's code is asked for: the waiting sign-in, carried by the form. */
  twoStep: { challenge: string; returnTo: string | undefined; basketReminders: boolean } | null;
};

/**
 * "Sign In" and "Create your account" share one form. Success of either goes signed in to the page that sent the
 * shopper here (`?returnTo=`, a path on this site), or home; a failure comes back here with the reason in an alert
 * and the e-mail still filled in. An account with two-step verification on is asked for its code next (the same
 * page, a second form): until it is right there is no session, only the waiting sign-in the form carries.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  if (typeof fields.intent === "string" && TWO_STEP_INTENTS.includes(fields.intent))
    return answerTwoStep(request, context, fields);
  const email = typeof fields.email === "string" ? fields.email.slice(0, 254) : "";
  const intent = fields.intent === "register" ? "register" : "sign-in";
  const parsed = signInFormSchema.safeParse(fields);
  if (!parsed.success) {
    return data<Answer>(
      {
        error: parsed.error.issues[0]?.message ?? "Please check the form and try again.",
        email,
        intent,
        twoStep: null,
      },
      { status: 400 },
    );
  }
  const { returnTo, basketReminders, ...credentials } = parsed.data;
  try {
    const outcome = await services.signInFlow.beginSignIn(credentials, { ip: clientIp, current: shopper.session });
    if ("twoStepChallenge" in outcome)
      return data<Answer>({
        error: null,
        email,
        intent,
        twoStep: { challenge: outcome.twoStepChallenge, returnTo, basketReminders },
      });
    return await signedIn(request, context, outcome, { returnTo, basketReminders });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return data<Answer>({ error: error.message, email, intent, twoStep: null }, { status: error.status, headers });
  }
}

/** "Enter the 6-digit code" or "Use a recovery code": signed in, or asked again (a sign-in that expired starts over). */
async function answerTwoStep(request: Request, context: Route.ActionArgs["context"], fields: Record<string, string>) {
  const { services, shopper } = context.get(requestContext);
  const challenge = (fields.challenge ?? "").slice(0, 100);
  const asked = fields.returnTo;
  const again = (error: string, status: number, headers: HeadersInit = {}) =>
    data<Answer>(
      {
        error,
        email: "",
        intent: fields.intent ?? "",
        twoStep: {
          challenge,
          returnTo: asked !== undefined && isLocalPath(asked) ? asked : undefined,
          basketReminders: fields.basketReminders === "on",
        },
      },
      { status, headers },
    );
  const parsed = twoStepSignInSchema.safeParse(fields);
  if (!parsed.success) return again(parsed.error.issues[0]?.message ?? "Please check the form and try again.", 400);
  const answer =
    parsed.data.intent === "two-step-code" ? { code: parsed.data.code } : { recoveryCode: parsed.data.recoveryCode };
  try {
    const next = await services.signInFlow.completeTwoStep(parsed.data.challenge, answer, {
      current: shopper.session,
    });
    return await signedIn(request, context, next, parsed.data);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND")
      return data<Answer>({ error: error.message, email: "", intent: "sign-in", twoStep: null }, { status: 410 });
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return again(error.message, error.status, headers);
  }
}

/**
 * The browser is signed in. An operator's pages come from the build with the console in it
 * (server/http/page-handlers.ts): the page this browser started from knows only the shop's routes, so the next page is
 * loaded whole, with the console's; and a browser this operator has not signed in from before is told of by e-mail.
 */
async function signedIn(
  request: Request,
  context: Route.ActionArgs["context"],
  next: Parameters<RequestContext["shopper"]["replaceSession"]>[0],
  { returnTo, basketReminders }: { returnTo?: string; basketReminders: boolean },
) {
  const { services, shopper, clientIp, publicOrigin } = context.get(requestContext);
  shopper.replaceSession(next);
  const user = next.session.user;
  if (basketReminders && user) await services.reminderConsent.setForAccount(user, true);
  if (!user?.isOperator) return redirect(returnTo ?? "/");
  const { setCookie } = await services.twoStep.noteConsoleSignIn(user, {
    cookieHeader: request.headers.get("Cookie"),
    isHttps: publicOrigin.startsWith("https:"),
    ip: clientIp,
    userAgent: request.headers.get("User-Agent") ?? "",
  });
  return redirectDocument(returnTo ?? "/", { headers: { "Set-Cookie": setCookie } });
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
  const notice = searchParams.get("notice") === "password-reset" ? PASSWORD_RESET_NOTICE : null;
  if (actionData?.twoStep) return <TwoStepStep {...actionData.twoStep} error={actionData.error} />;
  return (
    <main id="main" className="login">
      <title>{`Sign in | ${shopName}`}</title>
      <meta name="description" content={`Sign in to ${shopName} or create an account with your e-mail address.`} />
      <Link to="/" className="login__logo" aria-label={`${shopName} home`}>
        <Wordmark />
      </Link>
      <div className="login__box">
        <h1 className="login__title">{isRegistering ? "Create account" : "Sign-in"}</h1>
        {notice && !actionData ? (
          <p role="status" className="login__status">
            {notice}
          </p>
        ) : null}
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

const PASSWORD_RESET_NOTICE =
  "Your new password is set and every other device was signed out. Sign in with it and your two-step code.";

/**
 * The second step: "Enter the 6-digit code", or (behind "Use a recovery code", a disclosure that needs no script) one
 * of the recovery codes. Each form carries the waiting sign-in and where to go after.
 */
function TwoStepStep({
  challenge,
  returnTo,
  basketReminders,
  error,
}: {
  challenge: string;
  returnTo: string | undefined;
  basketReminders: boolean;
  error: string | null;
}) {
  const shopName = useShopName();
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  const hidden = (
    <>
      <input type="hidden" name="challenge" value={challenge} />
      {returnTo ? <input type="hidden" name={RETURN_TO_PARAM} value={returnTo} /> : null}
      {basketReminders ? <input type="hidden" name="basketReminders" value="on" /> : null}
    </>
  );
  return (
    <main id="main" className="login">
      <title>{`Two-step verification | ${shopName}`}</title>
      <meta name="robots" content="noindex" />
      <Link to="/" className="login__logo" aria-label={`${shopName} home`}>
        <Wordmark />
      </Link>
      <div className="login__box">
        <h1 className="login__title">Two-step verification</h1>
        <div role="alert" className={error ? "login__error" : "login__error login__error--empty"}>
          {error}
        </div>
        <Form method="post" className="login__form" noValidate>
          {hidden}
          <label htmlFor="two-step-code">Enter the 6-digit code</label>
          <p className="login__hint" id="two-step-code-hint">
            From the authenticator app on your phone.
          </p>
          <TwoStepCodeInput aria-describedby="two-step-code-hint" autoFocus />
          <button
            type="submit"
            name="intent"
            value="two-step-code"
            className="button login__sign-in"
            disabled={isSubmitting}
          >
            Verify
          </button>
        </Form>
        <details className="login__recovery">
          <summary>Use a recovery code</summary>
          <Form method="post" className="login__form" noValidate>
            {hidden}
            <label htmlFor="two-step-recovery">Recovery code</label>
            <input
              id="two-step-recovery"
              name="recoveryCode"
              type="text"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={40}
              required
            />
            <button
              type="submit"
              name="intent"
              value="recovery-code"
              className="button login__sign-in"
              disabled={isSubmitting}
            >
              Sign In with the recovery code
            </button>
          </Form>
        </details>
        <p className="login__forgot">
          <Link to="/login" reloadDocument>
            Start again
          </Link>
        </p>
      </div>
    </main>
  );
}
