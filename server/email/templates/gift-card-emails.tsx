// The gift card e-mail to its recipient: the value, the sender's message, and the code, written out nowhere else.

import { formatCents } from "#shared/money";
import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

/**
 * A gift card for its recipient: its value, who sent it with their message, and the code (in groups of four) that
 * pays with it. The only place the code is ever written out; the buyer's order shows "Sent to {e-mail}".
 */
export function giftCardEmail({
  shop,
  groupedCode,
  amountCents,
  senderName,
  message,
  expiresOn,
  shopUrl,
  balanceUrl,
}: {
  shop: EmailShop;
  groupedCode: string;
  amountCents: number;
  /** Null for a card issued by the shop itself. */
  senderName: string | null;
  message: string;
  /** "December 31st 2027" for a card issued by hand with an expiry; null: it never expires. */
  expiresOn: string | null;
  shopUrl: string;
  balanceUrl: string;
}) {
  const from = senderName ?? shop.name;
  const subject = `${from} sent you a ${formatCents(amountCents)} gift card`;
  return renderEmail(
    subject,
    <EmailLayout preview={subject} shop={shop}>
      <EmailHeading>{`A ${formatCents(amountCents)} gift card for you`}</EmailHeading>
      <p>{`From ${from}.`}</p>
      {message ? <p style={{ whiteSpace: "pre-line", fontStyle: "italic" }}>{message}</p> : null}
      <p>Your gift card number:</p>
      <p style={{ fontFamily: "monospace", fontSize: 22, letterSpacing: 2 }}>
        <strong>{groupedCode}</strong>
      </p>
      <p>
        {`Enter it at checkout under "Gift card or store credit". `}
        {expiresOn ? `It can be used until ${expiresOn}.` : "It never expires."}
      </p>
      <EmailButton href={shopUrl}>Visit the shop</EmailButton>
      <p style={{ fontSize: 12, color: "#565959" }}>
        Keep this e-mail: whoever has the number can spend the card. <a href={balanceUrl}>Check its balance</a>
      </p>
    </EmailLayout>,
  );
}
