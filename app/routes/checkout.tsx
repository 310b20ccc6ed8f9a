// The basket page: its lines, quantities, price changes, the subtotal and the way to payment.

import { data, Link } from "react-router";
import type { Route } from "./+types/checkout";
import { requestContext } from "#app/context";
import { readFormOrRefuse } from "#app/form-request";
import { BASKET_LINK_PARAM, productAnchorId } from "#shared/basket";
import { basketRemindersFormSchema } from "#shared/recovery-schemas";
import { ReminderConsentForm } from "#app/features/recovery/reminder-consent-form";
import { sumCents } from "#shared/money";
import { useOptimisticLines } from "#app/features/basket/basket-context";
import { BasketButton } from "#app/features/basket/components/basket-button";
import { BasketError } from "#app/features/basket/components/basket-error";
import { BasketLine } from "#app/features/basket/components/basket-line";
import { PriceChanges } from "#app/features/basket/components/price-changes";
import { QuantityForm } from "#app/features/basket/components/quantity-form";
import { SubtotalPanel } from "#app/features/basket/components/subtotal-panel";
import { useShopName } from "#app/features/shell/use-shop-name";

/** What the basket page says after a basket reminder's "Return to your basket" (server/recovery). */
const BASKET_LINK_NOTICES: Record<string, string> = {
  restored: "Welcome back: the items from your e-mail are in your basket.",
  expired: "That basket link has expired. Your basket is below.",
  gone: "That basket is no longer there: it may have been bought already. Your basket is below.",
};

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const basket = await services.basket.getBasket(shopper.basketOwner);
  const link = new URL(request.url).searchParams.get(BASKET_LINK_PARAM);
  return {
    basket,
    greetingName: shopper.user?.email ?? null,
    reminders: shopper.user ? (shopper.user.basketReminders ?? false) : null,
    linkNotice: link ? (BASKET_LINK_NOTICES[link] ?? null) : null,
  };
}

/** A signed-in shopper's "E-mail me about my basket and offers", kept as the account's preference. */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const parsed = basketRemindersFormSchema.safeParse(await readFormOrRefuse(request));
  if (!parsed.success) throw data({ message: "Please check the form and try again." }, { status: 400 });
  if (!shopper.user) throw data({ message: "Sign in to keep your e-mail preferences." }, { status: 403 });
  await services.reminderConsent.setForAccount(shopper.user, parsed.data.basketReminders);
  return { basketReminders: parsed.data.basketReminders };
}

export default function Checkout({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { basket, greetingName, reminders, linkNotice } = loaderData;
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
        {linkNotice ? (
          <p className="checkout__notice" role="status">
            {linkNotice}
          </p>
        ) : null}
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
      {/* An empty basket offers no subtotal or checkout: there is nothing to pay for. */}
      {items.length > 0 ? (
        <aside className="checkout__subtotal" aria-label="Subtotal">
          <SubtotalPanel
            count={count}
            subtotalCents={subtotalCents}
            isBlocked={items.some((item) => item.isOutOfStock)}
          >
            {reminders !== null ? <ReminderConsentForm isOn={reminders} /> : null}
          </SubtotalPanel>
        </aside>
      ) : null}
    </main>
  );
}
