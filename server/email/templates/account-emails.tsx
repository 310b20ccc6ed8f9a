// The account's e-mails: welcome, confirmation, password reset, staff invitation, password changed, account deleted, a
// new console sign-in.

import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

/** Links in e-mails are absolute, to the shop's public address (PUBLIC_URL). */
export interface LinkContext {
  shop: EmailShop;
}

function ConfirmEmail({
  shop,
  verifyUrl,
  heading,
  intro,
  ignore,
}: LinkContext & { verifyUrl: string; heading: string; intro: string; ignore: string }) {
  return (
    <EmailLayout preview={heading} shop={shop}>
      <EmailHeading>{heading}</EmailHeading>
      <p>{intro} Please confirm that this e-mail address is yours:</p>
      <EmailButton href={verifyUrl}>Confirm my e-mail</EmailButton>
      <p>The link works for 7 days. {ignore}</p>
    </EmailLayout>
  );
}

export function welcomeEmail(links: LinkContext & { verifyUrl: string }) {
  return renderEmail(
    `Welcome to ${links.shop.name}: please confirm your e-mail`,
    <ConfirmEmail
      {...links}
      heading={`Welcome to ${links.shop.name}`}
      intro="Your account is ready, and you can shop straight away."
      ignore="If you did not create an account, you can ignore this e-mail."
    />,
  );
}

export function verificationEmail(links: LinkContext & { verifyUrl: string }) {
  return renderEmail(
    `Please confirm your e-mail for ${links.shop.name}`,
    <ConfirmEmail
      {...links}
      heading="Confirm your e-mail"
      intro="You asked us to send the confirmation link again."
      ignore="If you did not ask for it, you can ignore this e-mail."
    />,
  );
}

export function passwordResetEmail({ shop, resetUrl }: LinkContext & { resetUrl: string }) {
  return renderEmail(
    `Reset your ${shop.name} password`,
    <EmailLayout preview="Reset your password" shop={shop}>
      <EmailHeading>Reset your password</EmailHeading>
      <p>Someone, hopefully you, asked to reset the password of your {shop.name} account. Choose a new one here:</p>
      <EmailButton href={resetUrl}>Set a new password</EmailButton>
      <p>
        The link works once, for one hour. If you did not ask for it, ignore this e-mail: your password stays as it is.
      </p>
    </EmailLayout>,
  );
}

/** "Invite staff": the link sets the invitee's password once, within 72 hours, and opens the console to them. */
export function staffInvitationEmail({
  shop,
  invitationUrl,
  role,
  invitedBy,
}: LinkContext & { invitationUrl: string; role: string; invitedBy: string }) {
  const subject = `You are invited to run ${shop.name}`;
  return renderEmail(
    subject,
    <EmailLayout preview={subject} shop={shop}>
      <EmailHeading>{subject}</EmailHeading>
      <p>
        {invitedBy} has invited you to the shop's console as {role}. Choose a password to accept:
      </p>
      <EmailButton href={invitationUrl}>Set my password</EmailButton>
      <p>The link works once, for 72 hours. If you were not expecting it, you can ignore this e-mail.</p>
    </EmailLayout>,
  );
}

export function passwordChangedEmail({ shop, forgotUrl }: LinkContext & { forgotUrl: string }) {
  return renderEmail(
    `Your ${shop.name} password was changed`,
    <EmailLayout preview="Your password was changed" shop={shop}>
      <EmailHeading>Your password was changed</EmailHeading>
      <p>The password of your {shop.name} account has just been changed, and every other device was signed out.</p>
      <p>
        If this was not you, reset your password now: <a href={forgotUrl}>{forgotUrl}</a>
      </p>
    </EmailLayout>,
  );
}

export function accountDeletedEmail({ shop }: LinkContext) {
  return renderEmail(
    `Your ${shop.name} account was deleted`,
    <EmailLayout preview="Your account was deleted" shop={shop}>
      <EmailHeading>Your account was deleted</EmailHeading>
      <p>
        As you asked, your {shop.name} account, its sessions and its basket have been erased. Orders you placed are kept
        for the shop&apos;s books, with your personal data removed.
      </p>
    </EmailLayout>,
  );
}

/** An operator's console opened from a browser this account had not signed in from before. */
export function newConsoleSignInEmail({
  shop,
  accountUrl,
  at,
  ip,
  browser,
}: LinkContext & { accountUrl: string; at: Date; ip: string; browser: string }) {
  const subject = `New sign-in to your ${shop.name} console`;
  return renderEmail(
    subject,
    <EmailLayout preview={subject} shop={shop}>
      <EmailHeading>{subject}</EmailHeading>
      <p>Your operator account was just signed in to from a browser it had not used before.</p>
      <p>
        When: {at.toISOString().slice(0, 16).replace("T", " ")} UTC
        <br />
        Address: {ip}
        <br />
        Browser: {browser || "not given"}
      </p>
      <p>
        If this was you, there is nothing to do. If it was not, change your password at once on{" "}
        <a href={accountUrl}>your account page</a> and ask another operator to reset your two-step verification.
      </p>
    </EmailLayout>,
  );
}
