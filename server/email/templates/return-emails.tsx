// A return's e-mails to the shopper: requested, approved (with where to send it), declined, cancelled.

import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout } from "./email-layout";
import type { OrderEmailData } from "./order-emails";

/** A return's lines as its e-mails list them. */
export interface ReturnEmailLine {
  title: string;
  quantity: number;
  /** "Refund", or "Replace with Size: M". */
  resolution: string;
}

export interface ReturnEmailData extends Pick<OrderEmailData, "shop" | "orderUrl" | "orderNumber"> {
  returnNumber: string;
  lines: ReturnEmailLine[];
}

function ReturnLines({ lines }: { lines: ReturnEmailLine[] }) {
  return (
    <ul>
      {lines.map((line, index) => (
        <li key={index}>
          {line.quantity} × {line.title} ({line.resolution})
        </li>
      ))}
    </ul>
  );
}

/** Sent once when a shopper asks for a return. */
export function returnRequestedEmail(data: ReturnEmailData & { refundCents: number; refundText: string }) {
  return renderEmail(
    "We received your return request",
    <EmailLayout preview="We received your return request" shop={data.shop}>
      <EmailHeading>We received your return request</EmailHeading>
      <p>
        Return {data.returnNumber} for order {data.orderNumber}:
      </p>
      <ReturnLines lines={data.lines} />
      <p>{data.refundText}</p>
      <p>We will let you know when it is approved. Please do not send anything yet.</p>
      <EmailButton href={data.orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/** Sent once when an operator approves a return: what to send, and where. */
export function returnApprovedEmail(data: ReturnEmailData & { returnAddress: string | null }) {
  return renderEmail(
    "Your return is approved",
    <EmailLayout preview="Your return is approved" shop={data.shop}>
      <EmailHeading>Your return is approved</EmailHeading>
      <p>
        Please send these items of order {data.orderNumber}, with the return number {data.returnNumber} inside the
        parcel:
      </p>
      <ReturnLines lines={data.lines} />
      {data.returnAddress ? (
        <p>
          <strong>Send them to</strong>
          {data.returnAddress.split("\n").map((line, index) => (
            <span key={index}>
              <br />
              {line}
            </span>
          ))}
        </p>
      ) : (
        <p>Reply to this e-mail and we will tell you where to send them.</p>
      )}
      <p>We refund or send the replacement once the items arrive.</p>
      <EmailButton href={data.orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/** Sent once when an operator declines a return, with their message. */
export function returnDeclinedEmail(data: ReturnEmailData & { message: string }) {
  return renderEmail(
    "Your return was declined",
    <EmailLayout preview="Your return was declined" shop={data.shop}>
      <EmailHeading>Your return was declined</EmailHeading>
      <p>
        We cannot accept return {data.returnNumber} for order {data.orderNumber}:
      </p>
      <ReturnLines lines={data.lines} />
      <p>{data.message}</p>
      <EmailButton href={data.orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/** Sent once when an operator cancels a return before it arrived: nothing is to be sent, and nothing is refunded. */
export function returnCancelledEmail(data: ReturnEmailData) {
  return renderEmail(
    "Your return was cancelled",
    <EmailLayout preview="Your return was cancelled" shop={data.shop}>
      <EmailHeading>Your return was cancelled</EmailHeading>
      <p>
        Return {data.returnNumber} for order {data.orderNumber} was cancelled:
      </p>
      <ReturnLines lines={data.lines} />
      <p>Please do not send these items. If you have questions, reply to this e-mail.</p>
      <EmailButton href={data.orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}
