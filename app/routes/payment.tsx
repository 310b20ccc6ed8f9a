import { useRef, useState } from "react";
import { Link } from "react-router";
import type { Route } from "./+types/payment";
import { requestContext } from "../context";
import { formatCents } from "../../shared/money";
import type { PaymentClientConfig } from "../../shared/payments";
import { BasketLine } from "../features/basket/components/basket-line";
import { PriceChanges } from "../features/basket/components/price-changes";
import { AuthenticationDialog } from "../features/payment/authentication-dialog";
import { CardEntry, cardFieldStyles, type CardEntryController, type CardEntryState } from "../features/payment/card-entry";
import { useCheckoutPayment } from "../features/payment/use-checkout-payment";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: cardFieldStyles }];

export async function loader({ context }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const basket = await services.basket.getBasket(shopper.basketOwner);
  const payment: PaymentClientConfig = {
    mode: services.provider.mode,
    publishableKey: services.provider.publishableKey,
    processorUrl: services.provider.browserProcessorUrl,
  };
  return { basket, email: shopper.user?.email ?? null, payment };
}

const EMPTY_CARD: CardEntryState = { empty: true, complete: false, error: null };

export default function Payment({ loaderData }: Route.ComponentProps) {
  const { basket, email, payment } = loaderData;
  const [card, setCard] = useState<CardEntryState>(EMPTY_CARD);
  const cardEntry = useRef<CardEntryController | null>(null);
  const checkout = useCheckoutPayment({
    totalCents: basket.subtotalCents,
    basketKey: basket.items.map((item) => `${item.itemId}:${item.quantity}:${item.product.priceCents}`).join(","),
    isEmpty: basket.count === 0,
    cardEntry,
  });
  const isDisabled = checkout.isProcessing || checkout.hasSucceeded || !checkout.clientSecret || card.empty || Boolean(card.error) || !card.complete;
  const message = card.error ?? checkout.error;

  return (
    <main id="main" className="payment">
      <title>Checkout | Storefront</title>
      <meta name="description" content="Review your items and delivery address, and pay by card." />
      <h1 className="payment__title">
        Checkout (<Link to="/checkout">{basket.count} {basket.count === 1 ? "item" : "items"}</Link>)
      </h1>

      <section className="payment__section" aria-labelledby="delivery-heading">
        <h2 id="delivery-heading" className="payment__heading">
          Delivery Address
        </h2>
        <address className="payment__address">
          <span>{email ?? "Guest"}</span>
          <span>123 React Lane</span>
          <span>Los Angeles, CA 90001</span>
        </address>
      </section>

      <section className="payment__section" aria-labelledby="review-heading">
        <h2 id="review-heading" className="payment__heading">
          Review items and delivery
        </h2>
        <PriceChanges lines={basket.items} />
        {basket.count === 0 ? (
          <p>
            Your basket is empty. <Link to="/">Continue shopping</Link>
          </p>
        ) : (
          <ul className="payment__items">
            {basket.items.map((item) => (
              <li key={item.itemId} data-testid="payment-line">
                <BasketLine product={item.product} quantity={item.quantity} />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="payment__section" aria-labelledby="method-heading">
        <h2 id="method-heading" className="payment__heading">
          Payment Method
        </h2>
        <div className="payment__method">
          <noscript>
            <p className="payment__noscript">Paying by card needs JavaScript, as card entry does at every card processor. Please turn it on to pay.</p>
          </noscript>
          <form
            className="payment__form"
            onSubmit={(event) => {
              event.preventDefault();
              if (!isDisabled) void checkout.buy();
            }}
          >
            <CardEntry
              config={payment}
              clientSecret={checkout.clientSecret}
              controller={cardEntry}
              errorId="card-error"
              disabled={checkout.isProcessing || checkout.hasSucceeded}
              onChange={(state) => {
                setCard(state);
                checkout.clearError();
              }}
            />
            <p className="payment__total" data-testid="order-total">
              Order Total: <strong>{formatCents(basket.subtotalCents)}</strong>
            </p>
            <button type="submit" className="button payment__buy" disabled={isDisabled}>
              {checkout.isProcessing ? "Processing" : "Buy Now"}
            </button>
            <div id="card-error" role="alert" className={message ? "payment__error" : "payment__error payment__error--empty"}>
              {message}
              {checkout.error && !checkout.clientSecret && !checkout.isProcessing ? (
                <button type="button" className="payment__retry" onClick={checkout.retry}>
                  Try again
                </button>
              ) : null}
            </div>
          </form>
        </div>
      </section>
      {checkout.isChallenged ? <AuthenticationDialog amount={formatCents(basket.subtotalCents)} onAnswer={(answer) => void checkout.answerChallenge(answer)} /> : null}
    </main>
  );
}
