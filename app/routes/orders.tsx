// /orders, "Your Orders": the shopper's orders, newest first, a page at a time.

import { useEffect, useRef } from "react";
import { Link } from "react-router";
import type { Route } from "./+types/orders";
import { requestContext } from "#app/context";
import { OrderCard } from "#app/features/orders/order-card";
import { formatShopTime } from "#shared/dates";
import { formatCents } from "#shared/money";
import { signInPath } from "#shared/local-path";
import { useShopName } from "#app/features/shell/use-shop-name";

/** "Your Orders", newest first, 20 a page. A guest sees the orders of this browser's session. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const url = new URL(request.url);
  const before = url.searchParams.get("before");
  const [page, underReview] = await Promise.all([
    services.orders.listOrders(shopper.basketOwner, before),
    services.checkout.listPaymentsUnderReview(shopper.basketOwner),
  ]);
  // Payments held for review are news, shown above the newest orders only.
  // After Buy Now: the order just placed, announced if it is the shopper's (a number in a link proves nothing).
  const placed = url.searchParams.get("placed");
  const placedOrder = placed && page.isFirstPage ? page.orders.find((order) => order.number === placed) : undefined;
  const isConfirming = url.searchParams.get("confirming") === "1" && !placedOrder;
  return {
    ...page,
    // Shoppers know an order by its number; the processor's intent id stays on the server.
    orders: page.orders.map(({ number, amountCents, createdAt, status, refundedCents, items, lineAmountsCents }) => ({
      number,
      amountCents,
      createdAt,
      placedAt: formatShopTime(new Date(createdAt), timeZone),
      status,
      refundedCents,
      items,
      lineAmountsCents,
    })),
    underReview: page.isFirstPage ? underReview : [],
    isGuest: !shopper.user,
    placedNumber: placedOrder?.number ?? null,
    isConfirming,
  };
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { orders, next, underReview, isGuest, isFirstPage, placedNumber, isConfirming } = loaderData;
  return (
    <main id="main" className="orders">
      <title>{`Your Orders | ${shopName}`}</title>
      <meta name="description" content={`Your ${shopName} orders, newest first.`} />
      <h1 className="orders__title">Your Orders</h1>
      <PlacedAnnouncement
        message={
          placedNumber
            ? `Thank you: your order ${placedNumber} is placed.`
            : isConfirming
              ? "Thank you: your payment went through and your order is being confirmed. It will appear here in a moment."
              : null
        }
      />
      {isGuest ? (
        <p className="orders__guest">
          You are not signed in: these are the orders placed in this browser.{" "}
          <Link to={signInPath("/orders")}>Sign in or create an account</Link> to keep them with your account.
        </p>
      ) : null}
      {underReview.length > 0 ? (
        <section className="orders__review" role="status" aria-labelledby="orders-review-heading">
          <h2 id="orders-review-heading">Payments we are checking</h2>
          <ul>
            {underReview.map((payment) => (
              <li key={payment.paymentIntentId}>
                Your payment of {formatCents(payment.paidAmountCents)} went through, but it did not match your basket,
                so no order was placed. We will refund it in full; your basket is unchanged.
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {orders.length === 0 ? (
        <div className="orders__empty">
          <p>{isFirstPage ? "You have no orders yet." : "There are no older orders."}</p>
          <Link to="/" className="button">
            Continue shopping
          </Link>
        </div>
      ) : (
        <div className="orders__list">
          {orders.map((order) => (
            <OrderCard key={order.number} order={order} />
          ))}
        </div>
      )}
      <nav className="orders__pages" aria-label="Order pages">
        {isFirstPage ? null : <Link to="/orders">Newest orders</Link>}
        {next ? <Link to={`/orders?before=${encodeURIComponent(next)}`}>Older orders</Link> : null}
      </nav>
    </main>
  );
}

/**
 * The confirmation after Buy Now. The live region is on the page first and empty, and the sentence is put into it
 * once the page is shown, which is what makes screen readers announce it.
 */
function PlacedAnnouncement({ message }: { message: string | null }) {
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = region.current;
    if (!element) return;
    element.textContent = message ?? "";
    element.className = message ? "orders__placed" : "orders__placed orders__placed--empty";
  }, [message]);
  return <div ref={region} role="status" className="orders__placed orders__placed--empty" data-testid="order-placed" />;
}
