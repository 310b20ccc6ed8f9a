import { Link } from "react-router";
import type { Route } from "./+types/checkout";
import { requestContext } from "#app/context";
import { productAnchorId } from "#shared/basket";
import { sumCents } from "#shared/money";
import { useOptimisticLines } from "#app/features/basket/basket-context";
import { BasketButton } from "#app/features/basket/components/basket-button";
import { BasketError } from "#app/features/basket/components/basket-error";
import { BasketLine } from "#app/features/basket/components/basket-line";
import { PriceChanges } from "#app/features/basket/components/price-changes";
import { QuantityForm } from "#app/features/basket/components/quantity-form";
import { SubtotalPanel } from "#app/features/basket/components/subtotal-panel";
import { useShopName } from "#app/features/shell/use-shop-name";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  return { basket: await services.basket.getBasket(shopper.basketOwner), greetingName: shopper.user?.email ?? null };
}

export default function Checkout({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { basket, greetingName } = loaderData;
  const items = useOptimisticLines(basket.items, basket.revision);
  const subtotalCents = sumCents(items.map((item) => item.lineCents));
  const count = items.reduce((sum, item) => sum + item.quantity, 0);
  return (
    <main id="main" className="checkout">
      <title>{`Your shopping Basket | ${shopName}`}</title>
      <meta name="description" content={`The items in your ${shopName} basket and their subtotal.`} />
      <div className="checkout__basket">
        <p className="checkout__greeting">Hello, {greetingName ?? "Guest"}</p>
        <h1 className="checkout__title">Your shopping Basket</h1>
        <PriceChanges lines={items} />
        {items.length === 0 ? (
          <div className="checkout__empty">
            <h2 className="checkout__empty-title">Your {shopName} Basket is empty</h2>
            <p>
              <Link to="/">Shop today&apos;s deals</Link>
            </p>
          </div>
        ) : (
          <ul className="checkout__items" aria-label="Items in your basket">
            {items.map((item) => (
              <li key={item.itemId} id={productAnchorId(item.product.id)} data-testid="basket-item">
                <BasketLine
                  product={item.product}
                  options={item.variant.options.map((option) => `${option.name}: ${option.value}`).join(", ")}
                  stockMessage={item.stockMessage}
                  action={
                    <div className="basket-line__actions">
                      <QuantityForm
                        productId={item.product.id}
                        variantId={item.variant.id}
                        title={item.product.title}
                        quantity={item.quantity}
                      />
                      <BasketButton
                        action="remove"
                        productId={item.product.id}
                        variantId={item.variant.id}
                        shownQuantity={item.quantity}
                      >
                        Remove from Basket
                      </BasketButton>
                      <BasketError productId={item.product.id} />
                    </div>
                  }
                />
              </li>
            ))}
          </ul>
        )}
      </div>
      {/* An empty basket offers no subtotal, gift box or checkout: there is nothing to pay for. */}
      {items.length > 0 ? (
        <aside className="checkout__subtotal" aria-label="Subtotal">
          <SubtotalPanel
            count={count}
            subtotalCents={subtotalCents}
            isBlocked={items.some((item) => item.isOutOfStock)}
          />
        </aside>
      ) : null}
    </main>
  );
}
