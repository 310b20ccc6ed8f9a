import { Link } from "react-router";
import { ORDER_STATUS_LABELS, type OrderView } from "#shared/orders";
import { formatOrderDate } from "#shared/dates";
import { formatCents } from "#shared/money";
import { LocalTime } from "#app/components/ui/local-time";
import { BasketLine } from "#app/features/basket/components/basket-line";

/** One paid order: when, its number (a link to its page), its status, what was in it (as priced then), and what it cost. */
export function OrderCard({ order }: { order: Omit<OrderView, "id" | "paymentStatus" | "fulfilmentStatus"> }) {
  const headingId = `order-${order.number}`;
  return (
    <article className="order" aria-labelledby={headingId} data-testid="order">
      <h2 id={headingId} className="order__heading">
        <Link to={`/orders/${order.number}`}>{`Order ${order.number}`}</Link>
      </h2>
      <p className="order__date">
        <LocalTime iso={order.createdAt} format={formatOrderDate} />
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
            />
          </li>
        ))}
      </ul>
      <p className="order__total">Order Total: {formatCents(order.amountCents)}</p>
    </article>
  );
}
