import { breakdownLines } from "#shared/pricing";
import { data } from "react-router";
import type { Route } from "./+types/order";
import { requestContext } from "#app/context";
import { addressLines } from "#shared/address";
import { formatShopTime } from "#shared/dates";
import { formatCents } from "#shared/money";
import {
  cardBrandName,
  PAYMENT_BY_PROMOTION,
  ORDER_STATUS_LABELS,
  type OrderHistoryEntry,
  describeItemOptions,
} from "#shared/orders";
import { PrintButton } from "#app/features/orders/print-button";
import { isReviewableOrderStatus } from "#shared/orders";
import { useShopName } from "#app/features/shell/use-shop-name";

/**
 * One order, by its number: only its owner sees it (a guest by their session, until it joins their account).
 * Anybody else, like a number that does not exist, gets the 404 page: order numbers leak nothing.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const key = params.number.slice(0, 80);
  const order = await services.orders.getOrder(shopper.basketOwner, key);
  if (!order) throw data(null, { status: 404 });
  // The processor's intent id stays on the server: the shopper's page knows the order by its number.
  const at = (iso: string) => formatShopTime(new Date(iso), timeZone);
  return {
    order: {
      ...order,
      id: undefined,
      placedAt: at(order.createdAt),
      history: order.history.map((entry) => ({ ...entry, atText: at(entry.at) })),
    },
    canReview: shopper.user !== null && isReviewableOrderStatus(order.status),
  };
}

function describe(entry: OrderHistoryEntry): string {
  const label = ORDER_STATUS_LABELS[entry.status];
  if (entry.status === "shipped" && entry.carrier)
    return `${label} with ${entry.carrier}${entry.trackingNumber ? `, tracking number ${entry.trackingNumber}` : ""}`;
  if (
    (entry.status === "refunded" || entry.status === "partially_refunded" || entry.status === "disputed") &&
    entry.amountCents !== null
  ) {
    return `${label}: ${formatCents(entry.amountCents)}`;
  }
  return label;
}

export default function Order({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { order, canReview } = loaderData;
  return (
    <main id="main" className="order-page">
      <title>{`Order ${order.number} | ${shopName}`}</title>
      <meta
        name="description"
        content={`Your ${shopName} order ${order.number}: its items, delivery address and status.`}
      />
      <div className="order-page__top">
        <h1 className="order-page__title">{`Order ${order.number}`}</h1>
        <PrintButton />
      </div>
      <dl className="order-page__facts">
        <div>
          <dt>Ordered</dt>
          <dd>
            <time dateTime={order.createdAt}>{order.placedAt}</time>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd data-testid="order-status">{ORDER_STATUS_LABELS[order.status]}</dd>
        </div>
        {order.isPaidByPromotion ? (
          <div>
            <dt>Payment</dt>
            <dd data-testid="order-card">{PAYMENT_BY_PROMOTION}</dd>
          </div>
        ) : null}
        {order.card ? (
          <div>
            <dt>Payment</dt>
            <dd data-testid="order-card">
              {`Paid with ${cardBrandName(order.card.brand)} ending in ${order.card.last4}`}
            </dd>
          </div>
        ) : null}
        {order.contactEmail ? (
          <div>
            <dt>Receipt sent to</dt>
            <dd className="order-page__email">{order.contactEmail}</dd>
          </div>
        ) : null}
      </dl>

      <section className="order-page__section" aria-labelledby="order-items-heading">
        <h2 id="order-items-heading">Items</h2>
        <table className="order-page__items">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Quantity</th>
              <th scope="col">Unit price</th>
              <th scope="col">Line total</th>
            </tr>
          </thead>
          <tbody>
            {order.items.map((item, index) => (
              <tr key={`${item.productId}-${index}`} data-testid="order-item">
                <td>
                  <span className="order-page__product">
                    <img
                      className="order-page__image"
                      src={item.image.src}
                      width={item.image.width}
                      height={item.image.height}
                      alt=""
                      loading="lazy"
                      decoding="async"
                    />
                    <span>
                      {item.title}
                      {describeItemOptions(item) ? (
                        <span className="order-page__options">{` (${describeItemOptions(item)})`}</span>
                      ) : null}
                      {canReview ? (
                        <>
                          <br />
                          <a
                            className="order-page__review"
                            href={`/write-a-review/${encodeURIComponent(item.productId)}`}
                          >
                            Write a customer review
                          </a>
                        </>
                      ) : null}
                    </span>
                  </span>
                </td>
                {/* data-label: the column's name, shown beside the figure when the row is stacked on a phone. */}
                <td data-label="Quantity">{item.quantity}</td>
                <td data-label="Unit price">{formatCents(item.priceCents)}</td>
                <td data-label="Line total">{formatCents(order.lineAmountsCents[index] ?? 0)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            {order.pricing
              ? breakdownLines(order.pricing, formatCents).map((line) => (
                  <tr key={line.label} data-testid="order-breakdown">
                    <th scope="row" colSpan={3}>
                      {line.label}
                    </th>
                    <td>{line.value}</td>
                  </tr>
                ))
              : null}
            <tr>
              <th scope="row" colSpan={3}>
                Order Total
              </th>
              <td data-testid="order-total">{formatCents(order.amountCents)}</td>
            </tr>
            {order.refundedCents > 0 ? (
              <tr>
                <th scope="row" colSpan={3}>
                  Refunded
                </th>
                <td>{formatCents(order.refundedCents)}</td>
              </tr>
            ) : null}
          </tfoot>
        </table>
      </section>

      {order.deliveryAddress ? (
        <section className="order-page__section" aria-labelledby="order-address-heading">
          <h2 id="order-address-heading">Delivery address</h2>
          <address className="order-page__address" data-testid="order-address">
            {addressLines(order.deliveryAddress).map((line, index) => (
              <span key={index}>{line}</span>
            ))}
          </address>
        </section>
      ) : null}

      <section className="order-page__section" aria-labelledby="order-history-heading">
        <h2 id="order-history-heading">History</h2>
        <ol className="order-page__history">
          {order.history.map((entry, index) => (
            <li key={index}>
              <time dateTime={entry.at}>{entry.atText}</time>: {describe(entry)}
            </li>
          ))}
        </ol>
      </section>
    </main>
  );
}
