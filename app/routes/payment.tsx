import { useRef, useState } from "react";
import { data, Link } from "react-router";
import type { Route } from "./+types/payment";
import { requestContext } from "../context";
import { ADDRESS_ERROR_PARAM } from "../../shared/address";
import { checkAddressForm, chooseSavedAddressSchema } from "../../shared/address-schemas";
import { AppError } from "../../shared/errors";
import { readFormFields } from "../../shared/form-fields";
import { formatCents } from "../../shared/money";
import type { PaymentClientConfig } from "../../shared/payments";
import { BasketLine } from "../features/basket/components/basket-line";
import { PriceChanges } from "../features/basket/components/price-changes";
import { AddressSection, type AddressActionData } from "../features/payment/address-form";
import { AuthenticationDialog } from "../features/payment/authentication-dialog";
import { CardEntry, cardFieldStyles, type CardEntryController, type CardEntryState } from "../features/payment/card-entry";
import { useCheckoutPayment } from "../features/payment/use-checkout-payment";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: cardFieldStyles }];

/** Sentences for a refusal of POST /checkout/address posted without JavaScript (it comes back as ?addressError=CODE). */
const ADDRESS_REFUSALS: Record<string, string> = {
  ADDRESS_INVALID: "Please check the delivery address: a field is missing or not in the form we need.",
  NOT_FOUND: "That address is no longer in your saved addresses. Please choose another or add it again.",
};

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const [basket, checkoutAddress, saved] = await Promise.all([
    services.basket.getBasket(shopper.basketOwner),
    services.addresses.getCheckoutAddress(shopper.basketOwner),
    shopper.user ? services.addresses.listSavedAddresses(shopper.user.id) : Promise.resolve([]),
  ]);
  const refusal = new URL(request.url).searchParams.get(ADDRESS_ERROR_PARAM);
  const payment: PaymentClientConfig = {
    mode: services.provider.mode,
    publishableKey: services.provider.publishableKey,
    processorUrl: services.provider.browserProcessorUrl,
  };
  return {
    basket,
    email: shopper.user?.email ?? null,
    payment,
    address: checkoutAddress?.address ?? null,
    contactEmail: checkoutAddress?.contactEmail ?? null,
    saved: saved.map(({ id, address }) => ({ id, address })),
    addressRefusal: refusal ? (ADDRESS_REFUSALS[refusal] ?? "Please check the delivery address.") : null,
  };
}

/**
 * The delivery address form (a new address, or one of the account's saved ones): validated with the shared schema,
 * kept with the basket by the address service. A refusal comes back by field, with what was typed.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const fields = await readFormFields(request).catch(() => ({}) as Record<string, string>);
  const { intent, ...rest } = fields;
  const values = Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, value.slice(0, 300)]));
  const refused = (errors: Extract<AddressActionData, { ok: false }>["errors"], status: number) =>
    data<AddressActionData>({ ok: false, errors, values }, { status });
  try {
    if (intent === "choose") {
      const chosen = chooseSavedAddressSchema.safeParse(rest);
      if (!chosen.success || !shopper.user) return refused({ form: "Choose one of your saved addresses." }, 422);
      await services.addresses.chooseSavedAddress(shopper.user.id, chosen.data.savedAddressId);
      return data<AddressActionData>({ ok: true });
    }
    const checked = checkAddressForm(rest, { isGuest: !shopper.user });
    if (!checked.ok) return refused(checked.errors, 422);
    const owner = await shopper.ensureBasketOwner();
    await services.addresses.setCheckoutAddress(owner, checked.address, checked.contactEmail);
    return data<AddressActionData>({ ok: true });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refused({ form: error.message }, error.status);
  }
}

const EMPTY_CARD: CardEntryState = { empty: true, complete: false, error: null };

export default function Payment({ loaderData, actionData }: Route.ComponentProps) {
  const { basket, email, payment, address, contactEmail, saved, addressRefusal } = loaderData;
  const [card, setCard] = useState<CardEntryState>(EMPTY_CARD);
  const cardEntry = useRef<CardEntryController | null>(null);
  const checkout = useCheckoutPayment({
    totalCents: basket.subtotalCents,
    // A new address re-prices too: the intent carries it as its shipping.
    basketKey: `${basket.items.map((item) => `${item.itemId}:${item.variant.id}:${item.quantity}:${item.product.priceCents}`).join(",")}|${JSON.stringify(address)}|${contactEmail ?? ""}`,
    isEmpty: basket.count === 0,
    hasAddress: address !== null,
    cardEntry,
  });
  const hasOutOfStockLine = basket.items.some((item) => item.isOutOfStock);
  const isDisabled =
    hasOutOfStockLine ||
    !address || checkout.isProcessing || checkout.hasSucceeded || !checkout.clientSecret || card.empty || Boolean(card.error) || !card.complete;
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
        <div className="payment__delivery">
          {email ? <p className="payment__account">{email}</p> : null}
          <AddressSection
            current={address}
            contactEmail={contactEmail}
            isGuest={!email}
            saved={saved}
            actionData={actionData}
            redirectedError={addressRefusal}
          />
        </div>
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
                <BasketLine
                  product={item.product}
                  quantity={item.quantity}
                  options={item.variant.options.map((option) => `${option.name}: ${option.value}`).join(", ")}
                  stockMessage={item.stockMessage}
                />
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
            <button type="submit" className="button payment__buy" disabled={isDisabled} aria-describedby={address ? undefined : "buy-needs-address"}>
              {checkout.isProcessing ? "Processing" : "Buy Now"}
            </button>
            {address ? null : (
              <p id="buy-needs-address" className="payment__hint">
                Add a delivery address above to pay.
              </p>
            )}
            <div id="card-error" role="alert" className={message ? "payment__error" : "payment__error payment__error--empty"}>
              {message}
              {checkout.paidOrderNumber ? (
                <Link to={`/orders/${checkout.paidOrderNumber}`}>See order {checkout.paidOrderNumber}</Link>
              ) : null}
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
