// /payment: the delivery address and option, the codes and balances, and paying by card.

import { useRef, useState } from "react";
import { data, Form, Link, redirect, useFetcher } from "react-router";
import type { Route } from "./+types/payment";
import { requestContext, type RequestContext } from "#app/context";
import { ADDRESS_ERROR_PARAM, countryName } from "#shared/address";
import { checkAddressForm, chooseSavedAddressSchema } from "#shared/address-schemas";
import { AppError } from "#shared/errors";
import { readFormOrRefuse } from "#app/form-request";
import { formatCents } from "#shared/money";
import type { PaymentClientConfig } from "#shared/payments";
import { amountDue, noDeliveryMessage } from "#shared/pricing";
import { deliveryOptionSchema } from "#shared/shipping-schemas";
import { OrderTotals } from "#app/features/pricing/order-totals";
import { BasketLine } from "#app/features/basket/components/basket-line";
import { PriceChanges } from "#app/features/basket/components/price-changes";
import { AddressSection, type AddressActionData } from "#app/features/payment/address-form";
import { AuthenticationDialog } from "#app/features/payment/authentication-dialog";
import {
  CardEntry,
  cardFieldStyles,
  type CardEntryController,
  type CardEntryState,
} from "#app/features/payment/card-entry";
import { useCheckoutPayment } from "#app/features/payment/use-checkout-payment";
import { PromotionForm, RemovePromotionButton, type PromotionActionData } from "#app/features/payment/promotion-form";
import { applyPromotionSchema } from "#shared/promotion-schemas";
import { removeBalanceSchema } from "#shared/store-credit-schemas";
import {
  RemoveBalanceButton,
  RemoveBalanceForm,
  StoreCreditForm,
  type BalanceActionData,
} from "#app/features/payment/balance-forms";
import { GiftCardApplyForm, type GiftCardApplyData } from "#app/features/gift-cards/gift-card-apply-form";
import { GIFT_CARD_REFUSALS } from "#shared/gift-cards";
import { useShopName } from "#app/features/shell/use-shop-name";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: cardFieldStyles }];

/** Sentences for a refusal of POST /checkout/address posted without JavaScript (it comes back as ?addressError=CODE). */
const ADDRESS_REFUSALS: ReadonlyMap<string, string> = new Map([
  ["ADDRESS_INVALID", "Please check the delivery address: a field is missing or not in the form we need."],
  ["NOT_FOUND", "That address is no longer in your saved addresses. Please choose another or add it again."],
]);

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const [{ basket, checkoutAddress, pricing, byOption, removedPromotion, freeOrderToken, storeCreditCents }, saved] =
    await Promise.all([
      services.checkout.priceCheckout(shopper.basketOwner, shopper.user?.email ?? null),
      shopper.user ? services.addresses.listSavedAddresses(shopper.user.id) : Promise.resolve([]),
    ]);
  // Nothing to pay for: the basket says so, with a way back to the shop.
  if (basket.items.length === 0) throw redirect("/checkout");
  const refusal = new URL(request.url).searchParams.get(ADDRESS_ERROR_PARAM);
  const payment: PaymentClientConfig = {
    mode: services.provider.mode,
    publishableKey: services.provider.publishableKey,
    processorUrl: services.provider.browserProcessorUrl,
  };
  return {
    basket,
    pricing,
    byOption,
    email: shopper.user?.email ?? null,
    payment,
    address: checkoutAddress?.address ?? null,
    contactEmail: checkoutAddress?.contactEmail ?? null,
    reminderConsent: shopper.user
      ? (shopper.user.basketReminders ?? false)
      : (checkoutAddress?.reminderConsent ?? false),
    saved: saved.map(({ id, address }) => ({ id, address })),
    addressRefusal: refusal ? (ADDRESS_REFUSALS.get(refusal) ?? "Please check the delivery address.") : null,
    removedPromotion,
    freeOrderToken,
    // "Use store credit ($x)": what the account has, counting what its own payment in progress holds.
    storeCreditCents: storeCreditCents ?? 0,
  };
}

/**
 * The delivery address form (a new address, or one of the account's saved ones): validated with the shared schema,
 * kept with the basket by the address service. A refusal comes back by field, with what was typed.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const { intent, ...rest } = fields;
  const values = Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, value.slice(0, 300)]));
  const refused = (errors: Extract<AddressActionData, { ok: false }>["errors"], status: number) =>
    data<AddressActionData>({ ok: false, errors, values }, { status });
  try {
    if (intent === "apply-promotion" || intent === "remove-promotion")
      return await promotionAction(intent, rest, context.get(requestContext));
    if (intent === "use-store-credit" || intent === "remove-balance")
      return await balanceAction(intent, rest, context.get(requestContext));
    if (intent === "apply-gift-card") return await applyGiftCard(rest, context.get(requestContext));
    if (intent === "place-free-order") return await placeFreeOrder(rest.token ?? "", context.get(requestContext));
    if (intent === "delivery-option") {
      const chosen = deliveryOptionSchema.safeParse(rest);
      const owner = shopper.basketOwner;
      if (!chosen.success || !owner) return refused({ form: "Choose a delivery option." }, 422);
      if (!(await services.addresses.setDeliveryMethod(owner, chosen.data.methodId)))
        return refused({ form: "Add a delivery address first." }, 400);
      return data<AddressActionData>({ ok: true });
    }
    if (intent === "choose") {
      const chosen = chooseSavedAddressSchema.safeParse(rest);
      if (!chosen.success || !shopper.user) return refused({ form: "Choose one of your saved addresses." }, 422);
      await services.addresses.chooseSavedAddress(shopper.user.id, chosen.data.savedAddressId);
      return data<AddressActionData>({ ok: true });
    }
    const checked = checkAddressForm(rest, { isGuest: !shopper.user });
    if (!checked.ok) return refused(checked.errors, 422);
    const owner = await shopper.ensureBasketOwner();
    await services.addresses.setCheckoutAddress(owner, checked.address, checked.contactEmail, checked.reminderConsent);
    await services.reminderConsent.afterAddressForm(shopper.user, checked);
    return data<AddressActionData>({ ok: true });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refused({ form: error.message }, error.status);
  }
}

/**
 * A gift card's "Apply": its number looked up (wrong numbers limited per session and address, 429 past the limit)
 * and, when it can pay, applied to this checkout; the totals are then priced with it.
 */
async function applyGiftCard(fields: Record<string, string>, { services, shopper, clientIp }: RequestContext) {
  const typed = (fields.giftCard ?? "").slice(0, 64);
  try {
    const found = await services.giftCards.lookUp(typed, { sessionId: shopper.session?.id ?? null, ip: clientIp });
    if (!found.ok) return data<GiftCardApplyData>({ giftCard: { ok: false, error: found.message } }, { status: 400 });
    await services.checkoutBalances.apply(await shopper.ensureBasketOwner(), found.card.accountId);
    return data<GiftCardApplyData>({ giftCard: { ok: true } });
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 429) throw error;
    return data<GiftCardApplyData>(
      { giftCard: { ok: false, error: error.message || GIFT_CARD_REFUSALS.invalid } },
      { status: 429, headers: { "Retry-After": String(error.retryAfterSeconds ?? 3600) } },
    );
  }
}

/** "Use store credit" and a balance's "Remove": the totals are priced again with what the checkout now applies. */
async function balanceAction(
  intent: "use-store-credit" | "remove-balance",
  fields: Record<string, string>,
  { services, shopper }: RequestContext,
) {
  const owner = shopper.basketOwner;
  if (intent === "use-store-credit") {
    if (!shopper.user)
      return data<BalanceActionData>(
        { balance: { ok: false, error: "Sign in to use store credit." } },
        { status: 400 },
      );
    await services.checkoutBalances.useStoreCredit(shopper.user.id);
    return data<BalanceActionData>({ balance: { ok: true } });
  }
  const parsed = removeBalanceSchema.safeParse(fields);
  if (!parsed.success || !owner)
    return data<BalanceActionData>(
      { balance: { ok: false, error: "Reload the page and try again." } },
      { status: 400 },
    );
  await services.checkoutBalances.remove(owner, parsed.data.account);
  return data<BalanceActionData>({ balance: { ok: true } });
}

/** "Apply" and "Remove": a refusal is the code's sentence under the field, and nothing changes. */
async function promotionAction(
  intent: "apply-promotion" | "remove-promotion",
  fields: Record<string, string>,
  { services, shopper }: RequestContext,
) {
  const owner = shopper.basketOwner;
  if (intent === "remove-promotion") {
    if (owner) await services.checkout.removePromotion(owner);
    return data<PromotionActionData>({ promotion: { ok: true } });
  }
  const typed = (fields.code ?? "").slice(0, 100);
  const parsed = applyPromotionSchema.safeParse({ code: typed });
  if (!parsed.success)
    return data<PromotionActionData>(
      { promotion: { ok: false, error: parsed.error.issues[0]?.message ?? "Enter a promotion code.", code: typed } },
      { status: 422 },
    );
  if (!owner)
    return data<PromotionActionData>(
      { promotion: { ok: false, error: "Add a delivery address first.", code: typed } },
      { status: 400 },
    );
  try {
    await services.checkout.applyPromotion(owner, parsed.data.code, shopper.user?.email ?? null);
    return data<PromotionActionData>({ promotion: { ok: true } });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data<PromotionActionData>(
      { promotion: { ok: false, error: error.message, code: typed } },
      { status: error.status },
    );
  }
}

/** "Place your order" for $0.00: the order's page, or the sentence saying why not (the basket is kept). */
async function placeFreeOrder(token: string, { services, shopper }: RequestContext) {
  const refused = (error: string, status: number) => data<FreeOrderActionData>({ freeOrder: { error } }, { status });
  if (!/^[A-Za-z0-9_-]{43}$/.test(token))
    return refused("Your basket has changed. Please check it and place your order again.", 400);
  try {
    const placed = await services.checkout.placeFreeOrder(shopper.basketOwner, token, shopper.user?.email ?? null);
    return redirect(`/orders?placed=${encodeURIComponent(placed.orderNumber)}`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return refused(error.message, error.status);
  }
}

type FreeOrderActionData = { freeOrder: { error: string } };

const EMPTY_CARD: CardEntryState = { empty: true, complete: false, error: null };

export default function Payment({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const {
    basket,
    pricing,
    byOption,
    email,
    payment,
    address,
    contactEmail,
    reminderConsent,
    saved,
    addressRefusal,
    removedPromotion,
    freeOrderToken,
    storeCreditCents,
  } = loaderData;
  const isStoreCreditApplied = (pricing.balances ?? []).some((balance) => balance.kind === "store_credit");
  const balanceAction = (accountId: string) => <RemoveBalanceButton accountId={accountId} />;
  const isFree = freeOrderToken !== null;
  const [card, setCard] = useState<CardEntryState>(EMPTY_CARD);
  const cardEntry = useRef<CardEntryController | null>(null);
  const delivery = useFetcher();
  // The option the shopper just chose is shown with its totals at once (the server priced the basket with every
  // option), while the choice is being kept; the payment is prepared for the server's choice only.
  const serverMethodId = pricing.shipping?.methodId ?? null;
  const pendingMethodId = delivery.formData?.get("methodId");
  // The choice shows at once: the fetcher's form data arrives in a transition, and until then a controlled radio
  // would spring back. A new answer from the server wins.
  const [choice, setChoice] = useState({ answeredWith: serverMethodId, id: serverMethodId });
  const chosenMethodId =
    typeof pendingMethodId === "string"
      ? pendingMethodId
      : choice.answeredWith === serverMethodId
        ? choice.id
        : serverMethodId;
  const shown = (chosenMethodId ? byOption[chosenMethodId] : undefined) ?? pricing;
  const isChoosing = delivery.state !== "idle";
  const isUndeliverable = pricing.isUndeliverable;
  const checkout = useCheckoutPayment({
    totalCents: pricing.totalCents,
    // A new address or delivery option re-prices too: the intent carries the address as its shipping.
    basketKey: `${basket.items.map((item) => `${item.itemId}:${item.variant.id}:${item.quantity}:${item.product.priceCents}`).join(",")}|${JSON.stringify(address)}|${contactEmail ?? ""}|${serverMethodId ?? ""}|${(pricing.balances ?? []).map((balance) => `${balance.accountId}:${balance.amountCents}`).join(",")}`,
    // A code that pays for everything: nothing to charge, the order is placed without a card.
    isEmpty: basket.count === 0 || isFree,
    hasAddress: address !== null && !isUndeliverable,
    cardEntry,
  });
  const hasOutOfStockLine = basket.items.some((item) => item.isOutOfStock);
  const isDisabled =
    hasOutOfStockLine ||
    !address ||
    isUndeliverable ||
    isChoosing ||
    checkout.isProcessing ||
    checkout.hasSucceeded ||
    !checkout.clientSecret ||
    card.empty ||
    Boolean(card.error) ||
    !card.complete;
  const message = card.error ?? checkout.error;

  return (
    <main id="main" className="payment">
      <title>{`Checkout | ${shopName}`}</title>
      <meta name="description" content="Review your items and delivery address, and pay by card." />
      <h1 className="payment__title">
        Checkout (
        <Link to="/checkout">
          {basket.count} {basket.count === 1 ? "item" : "items"}
        </Link>
        )
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
            reminderConsent={reminderConsent}
            isGuest={!email}
            saved={saved}
            actionData={actionData && "ok" in actionData ? actionData : undefined}
            redirectedError={addressRefusal}
          />
        </div>
      </section>

      {address ? (
        <section className="payment__section" aria-labelledby="delivery-option-heading">
          <h2 id="delivery-option-heading" className="payment__heading">
            Choose a delivery option
          </h2>
          <div className="payment__delivery">
            {isUndeliverable ? (
              <p className="payment__error" data-testid="no-delivery">
                {noDeliveryMessage(countryName(address.country))}
              </p>
            ) : (
              <Form method="post" className="delivery-options" replace preventScrollReset>
                <input type="hidden" name="intent" value="delivery-option" />
                <fieldset className="delivery-options__group">
                  <legend className="visually-hidden">Choose a delivery option</legend>
                  {pricing.deliveryOptions.map((option) => (
                    <label key={option.methodId} className="delivery-options__option">
                      <input
                        type="radio"
                        name="methodId"
                        value={option.methodId}
                        checked={chosenMethodId === option.methodId}
                        onChange={() => {
                          setChoice({ answeredWith: serverMethodId, id: option.methodId });
                          void delivery.submit(
                            { intent: "delivery-option", methodId: option.methodId },
                            { method: "post" },
                          );
                        }}
                      />
                      <span className="delivery-options__name">{option.name}</span>
                      {option.estimate ? <span className="delivery-options__estimate">{option.estimate}</span> : null}
                      <span className="delivery-options__price">
                        {option.priceCents === 0 ? "FREE" : formatCents(option.priceCents)}
                      </span>
                    </label>
                  ))}
                </fieldset>
                {/* Only without JavaScript: a button taken away after the page's scripts ran moved what lies below. */}
                <noscript>
                  <button type="submit" className="button delivery-options__use">
                    Use this delivery option
                  </button>
                </noscript>
              </Form>
            )}
          </div>
        </section>
      ) : null}

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
                  lineCents={item.lineCents}
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
          <PromotionForm
            appliedCode={pricing.promotion?.code ?? null}
            removed={removedPromotion}
            actionData={actionData}
          />
          <GiftCardApplyForm />
          {storeCreditCents > 0 || isStoreCreditApplied ? (
            <StoreCreditForm availableCents={storeCreditCents} isApplied={isStoreCreditApplied} />
          ) : null}
          {(pricing.balances ?? []).length > 0 ? <RemoveBalanceForm /> : null}
          {isFree ? (
            <Form method="post" className="payment__form">
              <input type="hidden" name="intent" value="place-free-order" />
              <input type="hidden" name="token" value={freeOrderToken} />
              <OrderTotals
                pricing={pricing}
                hasAddress={address !== null}
                promotionAction={<RemovePromotionButton />}
                balanceAction={balanceAction}
              />
              <button type="submit" className="button payment__buy" disabled={hasOutOfStockLine}>
                Place your order
              </button>
              <p className="payment__hint">
                {pricing.promotion && !pricing.balances?.length
                  ? "Your promotion covers the whole order, so no card is needed."
                  : "Nothing is left to pay by card."}
              </p>
              {actionData && "freeOrder" in actionData ? (
                <div role="alert" className="payment__error">
                  {actionData.freeOrder.error}
                </div>
              ) : null}
            </Form>
          ) : null}
          {isFree ? null : (
            <>
              <noscript>
                <p className="payment__noscript">
                  Paying by card needs JavaScript, as card entry does at every card processor. Please turn it on to pay.
                </p>
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
                <OrderTotals
                  pricing={shown}
                  hasAddress={address !== null}
                  promotionAction={<RemovePromotionButton />}
                  balanceAction={balanceAction}
                />
                <button
                  type="submit"
                  className="button payment__buy"
                  disabled={isDisabled}
                  aria-describedby={!address ? "buy-needs-address" : isUndeliverable ? "no-delivery-hint" : undefined}
                >
                  {checkout.isProcessing ? "Processing" : "Buy Now"}
                </button>
                {address ? null : (
                  <p id="buy-needs-address" className="payment__hint">
                    Add a delivery address above to pay.
                  </p>
                )}
                {address && isUndeliverable ? (
                  <p id="no-delivery-hint" className="payment__hint">
                    {noDeliveryMessage(countryName(address.country))}
                  </p>
                ) : null}
                <div
                  id="card-error"
                  role="alert"
                  className={message ? "payment__error" : "payment__error payment__error--empty"}
                >
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
            </>
          )}
        </div>
      </section>
      {checkout.isChallenged ? (
        <AuthenticationDialog
          amount={formatCents(amountDue(pricing))}
          onAnswer={(answer) => void checkout.answerChallenge(answer)}
        />
      ) : null}
    </main>
  );
}
