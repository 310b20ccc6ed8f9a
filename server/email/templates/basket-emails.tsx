// The basket reminder e-mail ("You left something in your basket") with its link back to the basket.

import type { BasketView } from "#shared/basket";
import { formatCents } from "#shared/money";
import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

export interface BasketReminderData {
  shop: EmailShop;
  /** The "Return to your basket" link (7 days; it never signs anyone in). */
  restoreUrl: string;
  unsubscribeUrl: string;
  basket: BasketView;
  /** 1: the reminder; 2: the one a day later, which may offer a code. */
  step: 1 | 2;
  promotionCode: string | null;
}

/** What a line says of its availability now: the basket's own sentence, else "In stock". */
function availabilityOf(line: BasketView["items"][number]): string {
  if (line.isOutOfStock) return "Out of stock";
  return line.stockMessage ?? "In stock";
}

/**
 * "You left something in your basket": the basket's lines at their prices and availability now, the way back to it,
 * and a one-click unsubscribe from basket reminders.
 */
export function basketReminderEmail({
  shop,
  restoreUrl,
  unsubscribeUrl,
  basket,
  step,
  promotionCode,
}: BasketReminderData) {
  const subject = step === 1 ? "You left something in your basket" : "Your basket is still waiting";
  return renderEmail(
    subject,
    <EmailLayout preview={subject} shop={shop}>
      <EmailHeading>{subject}</EmailHeading>
      <p>These are still in your basket, at today&apos;s prices:</p>
      <table style={{ width: "100%", borderCollapse: "collapse" }}>
        <tbody>
          {basket.items.map((line) => {
            const options = line.variant.options.map((option) => `${option.name}: ${option.value}`).join(", ");
            return (
              <tr key={line.itemId}>
                <td style={{ padding: "4px 0" }}>
                  {`${line.quantity} × ${line.product.title}${options ? ` (${options})` : ""}`}
                  <br />
                  <span style={{ fontSize: 12, color: "#565959" }}>{availabilityOf(line)}</span>
                </td>
                <td style={{ padding: "4px 0", textAlign: "right", verticalAlign: "top" }}>
                  {formatCents(line.lineCents)}
                </td>
              </tr>
            );
          })}
          <tr>
            <td style={{ padding: "8px 0 4px", fontWeight: "bold" }}>{`Subtotal (${basket.count} items)`}</td>
            <td style={{ padding: "8px 0 4px", textAlign: "right", fontWeight: "bold" }}>
              {formatCents(basket.subtotalCents)}
            </td>
          </tr>
        </tbody>
      </table>
      {promotionCode ? <p>{`Use the code ${promotionCode} at checkout.`}</p> : null}
      <EmailButton href={restoreUrl}>Return to your basket</EmailButton>
      <p style={{ fontSize: 12, color: "#565959" }}>
        You asked us to e-mail you about your basket. <a href={unsubscribeUrl}>Stop basket reminders</a>
      </p>
    </EmailLayout>,
  );
}
