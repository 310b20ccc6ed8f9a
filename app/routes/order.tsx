// /orders/{number}: one order for its owner only, with its returns, withdrawals and review links.

import { breakdownLines } from "#shared/pricing";
import { data, Link, type ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/order";
import { requestContext, type RequestContext } from "#app/context";
import { readFormOrRefuse } from "#app/form-request";
import { AppError } from "#shared/errors";
import { fieldErrorsOf } from "#shared/form-errors";
import { returnRequestSchema } from "#shared/return-schemas";
import { ORDER_ACCESS_PARAM } from "#shared/returns";
import { ReturnForm, type ReturnFormAnswer } from "#app/features/orders/return-form";
import { ReturnsList } from "#app/features/orders/returns-list";
import { GiftCardNote, giftCardNotes } from "#app/features/orders/gift-card-note";
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
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const key = params.number.slice(0, 80);
  const access = new URL(request.url).searchParams.get(ORDER_ACCESS_PARAM)?.slice(0, 64) ?? null;
  const { order, byLink } = await findOrder(services, shopper.basketOwner, key, access);
  if (!order) throw data(null, { status: 404 });
  // The order as read above goes to returns and withdrawal: one more statement (its returns and withdrawals), and
  // the replacement options' variants and stock only while a return may be asked for. Beside it, whom each gift card
  // line was sent to (never its number): read only for an order that has one.
  const [{ view: returns, afterSale }, deliveries] = await Promise.all([
    services.returns.orderPageReturns(order),
    order.items.some((item) => item.giftCard) ? services.giftCards.deliveriesOf(order.id) : null,
  ]);
  const giftCards = deliveries ? giftCardNotes(deliveries) : {};
  const withdrawal = services.withdrawals.forOrderPage(order, afterSale);
  const withdrawals = withdrawal.withdrawals;
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
    // "Withdraw from contract here" keeps the guest's signed link the page was opened with.
    withdrawPath: withdrawal.isOpen
      ? `/orders/${encodeURIComponent(order.number)}/withdraw${byLink && access ? `?${ORDER_ACCESS_PARAM}=${encodeURIComponent(access)}` : ""}`
      : null,
    // Just withdrawn (the withdrawal page's answer): the page says it was received, and when.
    withdrawnNow: new URL(request.url).searchParams.get("withdrawn")?.slice(0, 40) ?? null,
    withdrawals: withdrawals.map((withdrawal) => ({
      id: withdrawal.id,
      at: withdrawal.receivedAt.toISOString(),
      atText: formatShopTime(withdrawal.receivedAt, timeZone),
      lines: withdrawal.lines,
    })),
    // A replacement order is linked by the way the page was opened: the guest's by its own signed link.
    returns: {
      ...returns,
      returns: returns.returns.map(({ replacementOrder, ...made }) => ({
        ...made,
        replacementOrder: replacementOrder && {
          number: replacementOrder.number,
          path: byLink ? replacementOrder.signedPath : `/orders/${encodeURIComponent(replacementOrder.number)}`,
        },
      })),
    },
    giftCards,
    // The signed link's signature, carried by the return form, when the page was opened by it.
    access: byLink ? access : null,
    // A fresh key each time the form is drawn: the same request sent twice opens one return.
    returnKey: crypto.randomUUID(),
  };
}

/** The order by its owner (signed in, or the guest's session), else by the signed link's signature. */
async function findOrder(
  services: RequestContext["services"],
  owner: RequestContext["shopper"]["basketOwner"],
  key: string,
  access: string | null,
) {
  const owned = await services.orders.getOrder(owner, key);
  if (owned) return { order: owned, byLink: false };
  const linked = access ? await services.orders.getOrderByAccess(key, access) : null;
  return { order: linked, byLink: linked !== null };
}

/** Asking for the figure changes nothing: the page's data is not read again for it. */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (formData?.get("intent") === "quote") return false;
  return defaultShouldRevalidate;
}

/** "Show refund" (the figure without JavaScript) and "Request return". */
export async function action({ context, params, request }: Route.ActionArgs) {
  const { services, shopper } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const parsed = returnRequestSchema.safeParse(fields);
  if (!parsed.success)
    return data<ReturnFormAnswer>({ errors: fieldErrorsOf(parsed.error), values: fields }, { status: 400 });
  const input = parsed.data;
  const { order } = await findOrder(services, shopper.basketOwner, params.number.slice(0, 80), input.access);
  if (!order) throw data(null, { status: 404 });
  try {
    if (input.intent === "quote")
      return {
        quoteCents: await services.returns.quoteReturnRequest(order.id, input.lines),
        values: fields,
      } satisfies ReturnFormAnswer;
    const opened = await services.returns.requestReturn(order.id, input.lines, input.key);
    return { opened: { number: opened.number, refundCents: opened.refundCents } } satisfies ReturnFormAnswer;
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return data<ReturnFormAnswer>({ errors: { [field]: error.message }, values: fields }, { status: error.status });
  }
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

export default function Order({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { order, canReview, returns, access, returnKey, withdrawPath, withdrawals } = loaderData;
  const justWithdrawn = withdrawals.find((withdrawal) => withdrawal.id === loaderData.withdrawnNow);
  const answer = actionData as ReturnFormAnswer | undefined;
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
      {justWithdrawn ? (
        <p className="order-page__notice" role="status">
          We received your withdrawal on <time dateTime={justWithdrawn.at}>{justWithdrawn.atText}</time>
          {order.contactEmail ? ` and e-mailed a confirmation to ${order.contactEmail}` : ""}.
        </p>
      ) : null}
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
        {order.replacesReturnNumber ? (
          <div>
            <dt>Payment</dt>
            <dd data-testid="order-card">{`None: a replacement for return ${order.replacesReturnNumber}`}</dd>
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
      {withdrawPath ? (
        <p>
          {/* The EU's online withdrawal function: one click from the order to its one page, no questions first. */}
          <Link className="order-page__withdraw" to={withdrawPath}>
            Withdraw from contract here
          </Link>
        </p>
      ) : null}

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
                      <GiftCardNote notes={loaderData.giftCards[index]} />
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

      {withdrawals.length > 0 ? (
        <section className="order-page__section" aria-labelledby="order-withdrawals-heading">
          <h2 id="order-withdrawals-heading">Withdrawals</h2>
          <ul className="order-page__history" data-testid="order-withdrawals">
            {withdrawals.map((withdrawal) => (
              <li key={withdrawal.id}>
                <time dateTime={withdrawal.at}>{withdrawal.atText}</time>:{" "}
                {withdrawal.lines
                  .map((line) => `${line.quantity} × ${line.title}${line.options ? ` (${line.options})` : ""}`)
                  .join(", ")}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {answer?.opened ? (
        <section className="order-page__section" aria-labelledby="return-requested-heading" role="status">
          <h2 id="return-requested-heading">We received your return request</h2>
          <p>
            {`Return ${answer.opened.number}. Refund: ${formatCents(answer.opened.refundCents)}. We will e-mail you when it is approved.`}
          </p>
        </section>
      ) : returns.canRequest ? (
        <section className="order-page__section" aria-labelledby="order-return-heading">
          <h2 id="order-return-heading">Return or replace items</h2>
          <ReturnForm
            lines={returns.lines}
            feeCents={returns.feeCents}
            formKey={returnKey}
            access={access}
            answer={answer}
          />
        </section>
      ) : null}
      {returns.returns.length > 0 ? <ReturnsList returns={returns.returns} /> : null}

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
