// The stock alert's e-mails: "Confirm your alert" for an alert asked for by address, and the back-in-stock notice.

import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

/**
 * "Confirm your alert": the link that turns an alert asked for by e-mail address into one that is sent, and the one
 * that stops them all for an address somebody else typed.
 */
export function stockAlertConfirmationEmail({
  shop,
  confirmUrl,
  productTitle,
  unsubscribeUrl,
}: {
  shop: EmailShop;
  confirmUrl: string;
  productTitle: string;
  unsubscribeUrl: string;
}) {
  return renderEmail(
    "Confirm your alert",
    <EmailLayout preview="Confirm your alert" shop={shop}>
      <EmailHeading>Confirm your alert</EmailHeading>
      <p>{`You asked us to e-mail you when ${productTitle} is back in stock. Please confirm that this address is yours:`}</p>
      <EmailButton href={confirmUrl}>Confirm my alert</EmailButton>
      <p>If you did not ask for it, you can ignore this e-mail: without confirmation nothing more is sent.</p>
      <p style={{ fontSize: 12, color: "#565959" }}>
        <a href={unsubscribeUrl}>Don't e-mail me about stock again</a>
      </p>
    </EmailLayout>,
  );
}

/** The alert itself: once, with a link to the product and a one-click unsubscribe from stock alerts. */
export function backInStockEmail({
  shop,
  productUrl,
  productTitle,
  unsubscribeUrl,
}: {
  shop: EmailShop;
  productUrl: string;
  productTitle: string;
  unsubscribeUrl: string;
}) {
  return renderEmail(
    `Back in stock: ${productTitle}`,
    <EmailLayout preview={`Back in stock: ${productTitle}`} shop={shop}>
      <EmailHeading>{`${productTitle} is back in stock`}</EmailHeading>
      <p>You asked us to tell you. This is the only e-mail this alert sends.</p>
      <EmailButton href={productUrl}>See it in the shop</EmailButton>
      <p style={{ fontSize: 12, color: "#565959" }}>
        <a href={unsubscribeUrl}>Unsubscribe from stock alerts</a>
      </p>
    </EmailLayout>,
  );
}
