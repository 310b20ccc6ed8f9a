// The review request ("How was your …?") sent after an order ships.

import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

export interface ReviewRequestData {
  shop: EmailShop;
  unsubscribeUrl: string;
  /** The order's products not reviewed yet, first one named in the subject. */
  products: { title: string; reviewUrl: string }[];
}

/** "How was your {product}?": a link to each product's review form, and a link that stops review requests. */
export function reviewRequestEmail({ shop, unsubscribeUrl, products }: ReviewRequestData) {
  const first = products[0];
  if (!first) throw new Error("A review request names at least one product");
  return renderEmail(
    `How was your ${first.title}?`,
    <EmailLayout preview={`How was your ${first.title}?`} shop={shop}>
      <EmailHeading>{`How was your ${first.title}?`}</EmailHeading>
      <p>Your order arrived a while ago. Other shoppers would like to know what you think: a rating takes a moment.</p>
      {products.length === 1 ? (
        <EmailButton href={first.reviewUrl}>Write a customer review</EmailButton>
      ) : (
        products.map((product) => (
          <p key={product.reviewUrl}>
            <a href={product.reviewUrl}>{`Review ${product.title}`}</a>
          </p>
        ))
      )}
      <p style={{ fontSize: 12, color: "#565959" }}>
        Rather not be asked? <a href={unsubscribeUrl}>Unsubscribe from review requests</a>.
      </p>
    </EmailLayout>,
  );
}
