import { Link } from "react-router";
import type { Route } from "./+types/orders";
import { requestContext } from "../context";
import { OrderCard } from "../features/orders/order-card";

/** "Your Orders", newest first, 20 a page. A guest sees the orders of this browser's session. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const before = new URL(request.url).searchParams.get("before");
  const page = await services.orders.listOrders(shopper.basketOwner, before);
  return { ...page, isGuest: !shopper.user };
}

export default function Orders({ loaderData }: Route.ComponentProps) {
  const { orders, next, isGuest, isFirstPage } = loaderData;
  return (
    <main id="main" className="orders">
      <title>Your Orders | Storefront</title>
      <meta name="description" content="Your Storefront orders, newest first." />
      <h1 className="orders__title">Your Orders</h1>
      {isGuest ? (
        <p className="orders__guest">
          You are not signed in: these are the orders placed in this browser. <Link to="/login">Sign in or create an account</Link> to
          keep them with your account.
        </p>
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
            <OrderCard key={order.id} order={order} />
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
