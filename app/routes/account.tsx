// "Your Account": the e-mail and its confirmation, the password, two-step verification, sessions, reminders' consent
// and deleting the account.

import { data, Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/account";
import { requestContext } from "#app/context";
import { ErrorSummary } from "#app/components/form/error-summary";
import { FieldError } from "#app/components/form/field-error";
import { PasswordField } from "#app/features/account/password-field";
import { TwoStepSection } from "#app/features/account/two-step-section";
import { SignOutButton } from "#app/features/account/sign-out-button";
import { ReminderConsentForm } from "#app/features/recovery/reminder-consent-form";
import { accountActionSchema } from "#shared/account";
import { addressLines } from "#shared/address";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { fieldErrorsOf, type FieldErrors } from "#shared/form-errors";
import { signInPath } from "#shared/local-path";
import { formatCents } from "#shared/money";
import { useShopName } from "#app/features/shell/use-shop-name";

const NOTICES: ReadonlyMap<string, string> = new Map([
  ["password-reset", "Your new password is set, and you are signed in. Every other device was signed out."],
  ["verification-sent", "We have sent a new confirmation link. It works for 7 days."],
  ["verification-limit", "We have sent several links in the last hour. Please use the newest one, or try again later."],
  [
    "two-step-required",
    "The shop requires two-step verification for staff. Set it up below, then the console opens again.",
  ],
]);

/** "Your Account": the e-mail and its state, the password, sessions, and deleting the account. Signed-in shoppers only. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const notice = new URL(request.url).searchParams.get("notice") ?? "";
  if (!shopper.user) {
    if (notice === "account-deleted")
      return {
        account: null,
        savedAddresses: [],
        basketReminders: false,
        notice: "Your account has been deleted. Thank you for shopping with us.",
      };
    throw redirect(signInPath("/account"));
  }
  const [account, savedAddresses, twoStep, storeCredit] = await Promise.all([
    services.accountFlows.getAccount(shopper.user.id),
    services.addresses.listSavedAddresses(shopper.user.id),
    services.twoStep.getStatus(shopper.user.id, shopper.user.email),
    services.storeCredit.ofAccount(shopper.user.id),
  ]);
  if (!account) throw redirect(signInPath("/account"));
  return {
    account,
    savedAddresses,
    twoStep,
    // What the account owes nothing for: available now plus what a payment in progress holds.
    storeCreditCents: storeCredit.balanceCents,
    basketReminders: shopper.user.basketReminders ?? false,
    notice: NOTICES.get(notice) ?? null,
  };
}

type Answer = {
  intent: string;
  errors: FieldErrors;
  done: string | null;
  recoveryCodes?: string[];
  basketReminders?: boolean;
};

export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const session = shopper.session;
  if (!session?.user) return redirect(signInPath("/account"));
  const fields = await readFormOrRefuse(request);
  const intent = typeof fields.intent === "string" ? fields.intent.slice(0, 40) : "";
  const parsed = accountActionSchema.safeParse(fields);
  if (!parsed.success)
    return data<Answer>({ intent, errors: fieldErrorsOf(parsed.error), done: null }, { status: 400 });
  const form = parsed.data;
  try {
    switch (form.intent) {
      case "change-password":
        await services.accountFlows.changePassword(session, form.currentPassword, form.password, clientIp);
        return {
          intent,
          errors: {} as FieldErrors,
          done: "Your password is changed. Every other device was signed out; we have sent you an e-mail about it.",
        } satisfies Answer;
      case "sign-out-everywhere":
        await services.accountFlows.signOutEverywhere(session.user.id);
        shopper.clearSession();
        return redirect("/login");
      case "delete-account":
        await services.accountFlows.deleteAccount(session, form.deletePassword, clientIp);
        shopper.clearSession();
        return redirect("/account?notice=account-deleted");
      case "delete-address":
        await services.addresses.deleteSavedAddress(session.user.id, form.addressId);
        return {
          intent,
          errors: {} as FieldErrors,
          done: "The address is removed from your account.",
        } satisfies Answer;
      case "two-step-begin":
        await services.twoStep.beginSetup(session.user.id);
        return { intent, errors: {} as FieldErrors, done: null } satisfies Answer;
      case "two-step-confirm":
        return {
          intent,
          errors: {} as FieldErrors,
          done: "Two-step verification is on. From now on, signing in asks for a code from your app.",
          recoveryCodes: await services.twoStep.confirmSetup(session.user.id, form.code),
        } satisfies Answer;
      case "basket-reminders":
        await services.reminderConsent.setForAccount(session.user, form.basketReminders);
        return {
          intent,
          errors: {} as FieldErrors,
          done: null,
          basketReminders: form.basketReminders,
        } satisfies Answer;
      case "resend-verification":
        await services.accountFlows.resendVerification(session.user.id);
        return {
          intent,
          errors: {} as FieldErrors,
          done: "We have sent a new confirmation link. It works for 7 days.",
        } satisfies Answer;
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field =
      error.code === "WRONG_CREDENTIALS"
        ? form.intent === "delete-account"
          ? "deletePassword"
          : "currentPassword"
        : error.code === "INVALID_PASSWORD"
          ? "password"
          : form.intent === "two-step-confirm" && error.details?.field === "code"
            ? "code"
            : form.intent === "delete-account"
              ? "deletePassword"
              : "form";
    const message = error.code === "WRONG_CREDENTIALS" ? "That is not your current password." : error.message;
    const headers: HeadersInit = error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : {};
    return data<Answer>({ intent, errors: { [field]: message }, done: null }, { status: error.status, headers });
  }
}

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  const isSubmitting = navigation.state === "submitting";
  const { account, savedAddresses, twoStep, basketReminders, notice } = loaderData;
  const storeCreditCents = ("storeCreditCents" in loaderData ? loaderData.storeCreditCents : 0) ?? 0;
  if (!account) {
    return (
      <main id="main" className="account">
        <title>{`Account deleted | ${shopName}`}</title>
        <h1>Account deleted</h1>
        <p role="status">{notice}</p>
        <Link className="button" to="/">
          Go to the home page
        </Link>
      </main>
    );
  }
  const answerFor = (intent: string) => (actionData?.intent === intent ? actionData : undefined);
  const password = answerFor("change-password");
  const deletion = answerFor("delete-account");
  const resent = answerFor("resend-verification");
  return (
    <main id="main" className="account">
      <title>{`Your Account | ${shopName}`}</title>
      <meta name="description" content={`Your ${shopName} account: e-mail, password, sign-out and deletion.`} />
      <h1>Your Account</h1>
      {notice ? (
        <p role="status" className="account__notice">
          {notice}
        </p>
      ) : null}

      <section className="account__section" aria-labelledby="account-email">
        <h2 id="account-email">E-mail</h2>
        <p>
          {account.email}: {account.isEmailVerified ? <strong>confirmed</strong> : <strong>not confirmed yet</strong>}
        </p>
        {account.isEmailVerified ? null : (
          <Form method="post">
            <p>We sent a confirmation link when you registered. Lost it?</p>
            <button type="submit" name="intent" value="resend-verification" className="button" disabled={isSubmitting}>
              Send again
            </button>
            {resent?.done ? <p role="status">{resent.done}</p> : null}
            <FieldError fieldId="resend" message={resent?.errors.form} />
          </Form>
        )}
      </section>

      {storeCreditCents > 0 ? (
        <section className="account__section" aria-labelledby="account-store-credit">
          <h2 id="account-store-credit">Store credit</h2>
          <p>Store credit: {formatCents(storeCreditCents)}</p>
          <p>It is applied at checkout when you choose &quot;Use store credit&quot;.</p>
        </section>
      ) : null}

      <section className="account__section" aria-labelledby="account-password">
        <h2 id="account-password">Change password</h2>
        {password?.done ? (
          <p role="status" className="account__notice">
            {password.done}
          </p>
        ) : null}
        <ErrorSummary
          errors={password?.errors}
          fieldIds={{
            currentPassword: "account-current-password",
            password: "account-new-password",
            confirmPassword: "account-confirm-password",
          }}
        />
        <Form method="post" className="account__form" noValidate>
          <PasswordField
            id="account-current-password"
            name="currentPassword"
            label="Current password"
            autoComplete="current-password"
            error={password?.errors.currentPassword}
          />
          <PasswordField
            id="account-new-password"
            name="password"
            label="New password"
            autoComplete="new-password"
            error={password?.errors.password}
          />
          <PasswordField
            id="account-confirm-password"
            name="confirmPassword"
            label="Confirm new password"
            autoComplete="new-password"
            error={password?.errors.confirmPassword}
          />
          <FieldError fieldId="account-password-form" message={password?.errors.form} />
          <button type="submit" name="intent" value="change-password" className="button" disabled={isSubmitting}>
            Change password
          </button>
        </Form>
      </section>

      <TwoStepSection
        status={twoStep}
        answer={answerFor("two-step-confirm") ?? answerFor("two-step-begin")}
        isSubmitting={isSubmitting}
      />

      <section className="account__section" aria-labelledby="account-addresses">
        <h2 id="account-addresses">Saved delivery addresses</h2>
        {actionData?.intent === "delete-address" && actionData.done ? (
          <p className="account__notice" role="status">
            {actionData.done}
          </p>
        ) : null}
        {savedAddresses.length === 0 ? (
          <p>You have no saved delivery addresses. An address you deliver to is kept here for next time.</p>
        ) : (
          <ul className="account__addresses">
            {savedAddresses.map((saved) => (
              <li key={saved.id}>
                <address>
                  {addressLines(saved.address).map((line) => (
                    <span key={line}>{line}</span>
                  ))}
                </address>
                <Form method="post">
                  <input type="hidden" name="addressId" value={saved.id} />
                  <button
                    type="submit"
                    name="intent"
                    value="delete-address"
                    className="button"
                    disabled={isSubmitting}
                    aria-label={`Remove the address of ${saved.address.name}, ${saved.address.line1}`}
                  >
                    Remove
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="account__section" aria-labelledby="account-emails">
        <h2 id="account-emails">E-mail preferences</h2>
        <ReminderConsentForm isOn={basketReminders} />
      </section>

      <section className="account__section" aria-labelledby="account-sessions">
        <h2 id="account-sessions">Signed-in devices</h2>
        <SignOutButton className="button">Sign out</SignOutButton>
        <p>&ldquo;Sign out everywhere&rdquo; signs you out on every device and browser, this one included.</p>
        <Form method="post">
          <button type="submit" name="intent" value="sign-out-everywhere" className="button" disabled={isSubmitting}>
            Sign out everywhere
          </button>
        </Form>
      </section>

      <section className="account__section" aria-labelledby="account-delete">
        <h2 id="account-delete">Delete my account</h2>
        <p>
          Your account, its sessions and basket are erased for good. Your orders are kept for the shop&apos;s books,
          with your personal data removed. See the <Link to="/privacy">Privacy Notice</Link>.
        </p>
        <ErrorSummary errors={deletion?.errors} fieldIds={{ deletePassword: "account-delete-password" }} />
        <Form method="post" className="account__form" noValidate>
          <PasswordField
            id="account-delete-password"
            name="deletePassword"
            label="Your password, to confirm"
            autoComplete="current-password"
            error={deletion?.errors.deletePassword}
          />
          <button
            type="submit"
            name="intent"
            value="delete-account"
            className="button account__danger"
            disabled={isSubmitting}
          >
            Delete my account
          </button>
        </Form>
      </section>
    </main>
  );
}
