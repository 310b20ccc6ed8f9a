import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout } from "./email-layout";

/** Links in e-mails are absolute, to the shop's public address (PUBLIC_URL). */
export interface LinkContext {
  shopUrl: string;
}

function ConfirmEmail({
  shopUrl,
  verifyUrl,
  heading,
  intro,
  ignore,
}: LinkContext & { verifyUrl: string; heading: string; intro: string; ignore: string }) {
  return (
    <EmailLayout preview={heading} shopUrl={shopUrl}>
      <EmailHeading>{heading}</EmailHeading>
      <p>{intro} Please confirm that this e-mail address is yours:</p>
      <EmailButton href={verifyUrl}>Confirm my e-mail</EmailButton>
      <p>The link works for 7 days. {ignore}</p>
    </EmailLayout>
  );
}

export function welcomeEmail(links: LinkContext & { verifyUrl: string }) {
  return renderEmail(
    "Welcome to Storefront: please confirm your e-mail",
    <ConfirmEmail
      {...links}
      heading="Welcome to Storefront"
      intro="Your account is ready, and you can shop straight away."
      ignore="If you did not create an account, you can ignore this e-mail."
    />,
  );
}

export function verificationEmail(links: LinkContext & { verifyUrl: string }) {
  return renderEmail(
    "Please confirm your e-mail for Storefront",
    <ConfirmEmail
      {...links}
      heading="Confirm your e-mail"
      intro="You asked us to send the confirmation link again."
      ignore="If you did not ask for it, you can ignore this e-mail."
    />,
  );
}

export function passwordResetEmail({ shopUrl, resetUrl }: LinkContext & { resetUrl: string }) {
  return renderEmail(
    "Reset your Storefront password",
    <EmailLayout preview="Reset your password" shopUrl={shopUrl}>
      <EmailHeading>Reset your password</EmailHeading>
      <p>Someone, hopefully you, asked to reset the password of your Storefront account. Choose a new one here:</p>
      <EmailButton href={resetUrl}>Set a new password</EmailButton>
      <p>
        The link works once, for one hour. If you did not ask for it, ignore this e-mail: your password stays as it is.
      </p>
    </EmailLayout>,
  );
}

/** "Invite staff": the link sets the invitee's password once, within 72 hours, and opens the console to them. */
export function staffInvitationEmail({
  shopUrl,
  invitationUrl,
  role,
  invitedBy,
}: LinkContext & { invitationUrl: string; role: string; invitedBy: string }) {
  return renderEmail(
    "You are invited to run Storefront",
    <EmailLayout preview="You are invited to run Storefront" shopUrl={shopUrl}>
      <EmailHeading>You are invited to run Storefront</EmailHeading>
      <p>
        {invitedBy} has invited you to the shop's console as {role}. Choose a password to accept:
      </p>
      <EmailButton href={invitationUrl}>Set my password</EmailButton>
      <p>The link works once, for 72 hours. If you were not expecting it, you can ignore this e-mail.</p>
    </EmailLayout>,
  );
}

export function passwordChangedEmail({ shopUrl, forgotUrl }: LinkContext & { forgotUrl: string }) {
  return renderEmail(
    "Your Storefront password was changed",
    <EmailLayout preview="Your password was changed" shopUrl={shopUrl}>
      <EmailHeading>Your password was changed</EmailHeading>
      <p>The password of your Storefront account has just been changed, and every other device was signed out.</p>
      <p>
        If this was not you, reset your password now: <a href={forgotUrl}>{forgotUrl}</a>
      </p>
    </EmailLayout>,
  );
}

export function accountDeletedEmail({ shopUrl }: LinkContext) {
  return renderEmail(
    "Your Storefront account was deleted",
    <EmailLayout preview="Your account was deleted" shopUrl={shopUrl}>
      <EmailHeading>Your account was deleted</EmailHeading>
      <p>
        As you asked, your Storefront account, its sessions and its basket have been erased. Orders you placed are kept
        for the shop&apos;s books, with your personal data removed.
      </p>
    </EmailLayout>,
  );
}
