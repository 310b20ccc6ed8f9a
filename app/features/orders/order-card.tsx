// One paid order on the orders page: when, its number, its status, what was in it and what it cost.

import { Link } from "react-router";
import { describeItemOptions, ORDER_STATUS_LABELS, type OrderView } from "#shared/orders";
import { formatCents } from "#shared/money";
import { BasketLine } from "#app/features/basket/components/basket-line";

/**
 * One paid order: when, its number (a link to its page), its status, what was in it (as priced then, with each
 * line's options: "Size: L, Colour: White"), and what it cost.
 */
export function OrderCard({
  order,
}: {
  order: Omit<OrderView, "id" | "paymentStatus" | "fulfilmentStatus"> & { placedAt: string };
}) {
  const headingId = `order-${order.number}`;
  return (
    <article className="order" aria-labelledby={headingId} data-testid="order">
      <h2 id={headingId} className="order__heading">
        <Link to={`/orders/${order.number}`}>{`Order ${order.number}`}</Link>
      </h2>
      <p className="order__date">
        <time dateTime={order.createdAt}>{order.placedAt}</time>
      </p>
      <p className="order__status" data-testid="order-status">
        <span className={`order-status order-status--${order.status}`}>{ORDER_STATUS_LABELS[order.status]}</span>
      </p>
      <ul className="order__items">
        {order.items.map((item, index) => (
          <li key={`${item.productId}-${index}`}>
            <BasketLine
              product={{
                id: item.productId,
                title: item.title,
                priceCents: item.priceCents,
                rating: item.rating,
                image: item.image,
              }}
              quantity={item.quantity}
              lineCents={order.lineAmountsCents[index]}
              options={describeItemOptions(item)}
            />
          </li>
        ))}
      </ul>
      <p className="order__total">Order Total: {formatCents(order.amountCents)}</p>
    </article>
  );
}
