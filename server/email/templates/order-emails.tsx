// The order's e-mails: confirmation, shipped, refunded, and the refund of a payment held for review.

import { addressLines, type DeliveryAddress } from "#shared/address";
import { formatCents } from "#shared/money";
import { describeItemOptions, orderLineAmounts, type OrderItem } from "#shared/orders";
import { breakdownLines, type PriceBreakdown } from "#shared/pricing";
import { renderEmail } from "#server/email/render";
import { EmailButton, EmailHeading, EmailLayout, type EmailShop } from "./email-layout";

export interface OrderEmailData {
  shop: EmailShop;
  orderUrl: string;
  orderNumber: string;
  items: OrderItem[];
  totalCents: number;
  /** What the total is made of; null for orders from before delivery options and tax. */
  pricing: PriceBreakdown | null;
  deliveryAddress: DeliveryAddress | null;
}

function DeliveryTo({ address }: { address: DeliveryAddress | null }) {
  if (!address) return null;
  return (
    <p>
      <strong>Delivering to</strong>
      {addressLines(address).map((line) => (
        <span key={line}>
          <br />
          {line}
        </span>
      ))}
    </p>
  );
}

function OrderLines({
  items,
  totalCents,
  pricing,
}: {
  items: OrderItem[];
  totalCents: number;
  pricing: PriceBreakdown | null;
}) {
  // As the order stored them: the pricing function's line amounts.
  const amounts = orderLineAmounts(items, pricing);
  return (
    <table style={{ width: "100%", borderCollapse: "collapse" }}>
      <tbody>
        {items.map((item, index) => (
          <tr key={item.variantId ?? item.productId}>
            <td style={{ padding: "4px 0" }}>
              {item.quantity} × {item.title}
              {describeItemOptions(item) ? ` (${describeItemOptions(item)})` : ""}
            </td>
            <td style={{ padding: "4px 0", textAlign: "right" }}>{formatCents(amounts[index] ?? 0)}</td>
          </tr>
        ))}
        {pricing
          ? breakdownLines(pricing, formatCents).map((line) => (
              <tr key={line.label}>
                <td style={{ padding: "4px 0" }}>{line.label}</td>
                <td style={{ padding: "4px 0", textAlign: "right" }}>{line.value}</td>
              </tr>
            ))
          : null}
        <tr>
          <td style={{ padding: "8px 0", fontWeight: "bold" }}>Order total</td>
          <td style={{ padding: "8px 0", textAlign: "right", fontWeight: "bold" }}>{formatCents(totalCents)}</td>
        </tr>
      </tbody>
    </table>
  );
}

export function orderConfirmationEmail({
  shop,
  orderUrl,
  orderNumber,
  items,
  totalCents,
  pricing,
  deliveryAddress,
}: OrderEmailData) {
  return renderEmail(
    `Your ${shop.name} order ${orderNumber}: ${formatCents(totalCents)}`,
    <EmailLayout preview="Thank you for your order" shop={shop}>
      <EmailHeading>Thank you for your order</EmailHeading>
      <p>We have received your payment and your order {orderNumber} is confirmed.</p>
      <OrderLines items={items} totalCents={totalCents} pricing={pricing} />
      <DeliveryTo address={deliveryAddress} />
      <EmailButton href={orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/**
 * A return's replacement order, made at $0.00 when the operator presses "Replace": what is sent and where, said as a
 * replacement (nothing was paid for it), in place of the order confirmation.
 */
export function replacementOrderEmail({
  shop,
  orderUrl,
  orderNumber,
  items,
  totalCents,
  pricing,
  deliveryAddress,
  returnNumber,
}: OrderEmailData & { returnNumber: string }) {
  return renderEmail(
    `Your ${shop.name} replacement order ${orderNumber}: ${formatCents(totalCents)}`,
    <EmailLayout preview="Your replacement is on its way soon" shop={shop}>
      <EmailHeading>Your replacement order</EmailHeading>
      <p>
        Order {orderNumber} sends you the replacement for return {returnNumber}, at no charge. We will e-mail you when
        it ships.
      </p>
      <OrderLines items={items} totalCents={totalCents} pricing={pricing} />
      <DeliveryTo address={deliveryAddress} />
      <EmailButton href={orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

export function orderShippedEmail({
  shop,
  orderUrl,
  orderNumber,
  items,
  totalCents,
  pricing,
  deliveryAddress,
  carrier,
  trackingNumber,
}: OrderEmailData & { carrier: string; trackingNumber: string }) {
  return renderEmail(
    `Your ${shop.name} order ${orderNumber} has shipped`,
    <EmailLayout preview="Your order has shipped" shop={shop}>
      <EmailHeading>Your order is on its way</EmailHeading>
      <p>
        Carrier: {carrier}
        <br />
        Tracking number: {trackingNumber}
      </p>
      <OrderLines items={items} totalCents={totalCents} pricing={pricing} />
      <DeliveryTo address={deliveryAddress} />
      <EmailButton href={orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/** A refund: "Your refund of $x", with the items and shipping it gives back (none for a refund by amount alone). */
export function orderRefundedEmail({
  shop,
  orderUrl,
  orderNumber,
  refundCents,
  lines = [],
  includesShipping = false,
}: Pick<OrderEmailData, "shop" | "orderUrl" | "orderNumber"> & {
  refundCents: number;
  lines?: { title: string; quantity: number }[];
  includesShipping?: boolean;
}) {
  return renderEmail(
    `Your ${shop.name} refund for order ${orderNumber}: ${formatCents(refundCents)}`,
    <EmailLayout preview="Your refund" shop={shop}>
      <EmailHeading>Your refund of {formatCents(refundCents)}</EmailHeading>
      {lines.length > 0 || includesShipping ? (
        <>
          <p>For order {orderNumber}, we have refunded:</p>
          <ul>
            {lines.map((line, index) => (
              <li key={index}>
                {line.quantity} × {line.title}
              </li>
            ))}
            {includesShipping ? <li>Shipping</li> : null}
          </ul>
        </>
      ) : (
        <p>
          We have refunded {formatCents(refundCents)} of order {orderNumber}.
        </p>
      )}
      <p>The refund goes back to the card you paid with. Banks usually show it within 5 to 10 days.</p>
      <EmailButton href={orderUrl}>View your order</EmailButton>
    </EmailLayout>,
  );
}

/** A payment held for review (it did not match the basket, so no order was placed), given back in full. */
export function heldPaymentRefundedEmail({
  shop,
  ordersUrl,
  refundCents,
}: {
  shop: EmailShop;
  ordersUrl: string;
  refundCents: number;
}) {
  return renderEmail(
    `Your ${shop.name} payment of ${formatCents(refundCents)} has been refunded`,
    <EmailLayout preview="Your refund" shop={shop}>
      <EmailHeading>We have refunded {formatCents(refundCents)}</EmailHeading>
      <p>
        Your payment of {formatCents(refundCents)} went through, but it did not match your basket, so no order was
        placed. We have refunded it in full to the card you paid with. Banks usually show it within 5 to 10 days.
      </p>
      <p>Your basket is unchanged: you can place the order again whenever you like.</p>
      <EmailButton href={ordersUrl}>Your orders</EmailButton>
    </EmailLayout>,
  );
}
