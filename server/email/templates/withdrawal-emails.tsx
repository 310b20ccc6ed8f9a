// The acknowledgement of an EU withdrawal ("We received your withdrawal"), stating what was withdrawn from and when.

import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

export interface WithdrawalEmailData {
  shop: EmailShop;
  orderUrl: string;
  orderNumber: string;
  /** The units withdrawn from, as the order named them. */
  lines: { title: string; options: string; quantity: number }[];
  isFull: boolean;
  name: string;
  email: string;
  /** When the withdrawal was received, ISO 8601 and as the shop states it ("November 29th 2026, 1:05am CET"). */
  receivedAt: string;
  receivedAtText: string;
}

/**
 * "We received your withdrawal": the acknowledgement on a durable medium the law asks for (Consumer Rights Directive,
 * Article 11a(3)), with what was withdrawn from, by whom, and when it was received.
 */
export function withdrawalReceivedEmail({
  shop,
  orderUrl,
  orderNumber,
  lines,
  isFull,
  name,
  email,
  receivedAt,
  receivedAtText,
}: WithdrawalEmailData) {
  return renderEmail(
    `We received your withdrawal from ${shop.name} order ${orderNumber}`,
    <EmailLayout preview="We received your withdrawal" shop={shop}>
      <EmailHeading>We received your withdrawal</EmailHeading>
      <p>
        We received your withdrawal from the contract for order {orderNumber} on{" "}
        <time dateTime={receivedAt}>{receivedAtText}</time>.
      </p>
      <p>{isFull ? "You withdrew from the whole order:" : "You withdrew from these items:"}</p>
      <table style={{ width: "100%", borderCollapse: "collapse" }}>
        <tbody>
          {lines.map((line, index) => (
            <tr key={index}>
              <td style={{ padding: "4px 0" }}>
                {line.quantity} × {line.title}
                {line.options ? ` (${line.options})` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Name: {name}
        <br />
        E-mail: {email}
      </p>
      <p>
        We will refund what you paid for {isFull ? "them, with the original delivery charge," : "them"} to your original
        payment method within 14 days. Please send the items back within 14 days; we may wait to refund until they are
        back or you show us you sent them.
      </p>
      <EmailButton href={orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}
