// /orders/{number}/withdraw: "Withdraw from contract here" for an EU or EEA order, its owner only.

import { data, Form, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/order-withdrawal";
import { requestContext } from "#app/context";
import { readFormOrRefuse } from "#app/form-request";
import { useShopName } from "#app/features/shell/use-shop-name";
import { formatShopTime } from "#shared/dates";
import { AppError } from "#shared/errors";
import { ORDER_ACCESS_PARAM } from "#shared/returns";
import { withdrawalFormSchema } from "#shared/withdrawal-schemas";

/**
 * "Withdraw from contract here": one page with the order, its lines (all ticked), the shopper's name and e-mail and
 * "Confirm withdrawal". No reason is asked. Only the order's owner reaches it, as the order's own page; an order that
 * cannot be withdrawn from (outside the EU and EEA, after its period) is the 404 page.
 */
/** The order as its page finds it: its owner's (by session), or anybody's holding the guest's signed link. */
async function findOrder(context: Route.LoaderArgs["context"], request: Request, number: string) {
  const { services, shopper } = context.get(requestContext);
  const key = number.slice(0, 80);
  const access = new URL(request.url).searchParams.get(ORDER_ACCESS_PARAM)?.slice(0, 100) ?? null;
  const order =
    (await services.orders.getOrder(shopper.basketOwner, key)) ?? (await services.orders.getOrderByAccess(key, access));
  if (!order) throw data(null, { status: 404 });
  return order;
}

export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const order = await findOrder(context, request, params.number);
  const offer = await services.withdrawals.offer(order.id);
  if (!offer) throw data(null, { status: 404 });
  const timeZone = await services.settings.timeZone();
  return {
    number: order.number,
    placedAt: formatShopTime(new Date(order.createdAt), timeZone),
    createdAt: order.createdAt,
    offer: { ...offer, periodEndsAtText: offer.periodEndsAt && formatShopTime(new Date(offer.periodEndsAt), timeZone) },
    // Drawn with the page: a second submission of this form is the same withdrawal.
    key: crypto.randomUUID(),
  };
}

export async function action({ context, params, request }: Route.ActionArgs) {
  const { services } = context.get(requestContext);
  const order = await findOrder(context, request, params.number);
  const parsed = withdrawalFormSchema.safeParse(await readFormOrRefuse(request));
  if (!parsed.success) {
    return data({ error: parsed.error.issues[0]?.message ?? "Reload the page and try again." }, 400);
  }
  try {
    const withdrawal = await services.withdrawals.withdraw(order.id, {
      idempotencyKey: parsed.data.key,
      lines: parsed.data.lines.map((index) => ({ index, quantity: Number.MAX_SAFE_INTEGER })),
    });
    // To the order's page, which states the withdrawal with its date and time: a reload asks nothing again.
    const query = new URLSearchParams({ withdrawn: withdrawal.id });
    const access = new URL(request.url).searchParams.get(ORDER_ACCESS_PARAM)?.slice(0, 100);
    if (access) query.set(ORDER_ACCESS_PARAM, access);
    return redirect(`/orders/${encodeURIComponent(order.number)}?${query}`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return data({ error: error.message }, error.status);
  }
}

export default function OrderWithdrawal({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const navigation = useNavigation();
  const { number, offer, key } = loaderData;
  const title = `Withdraw from order ${number}`;
  const errorId = "withdrawal-error";
  return (
    <main id="main" className="order-page withdrawal-page">
      <title>{`${title} | ${shopName}`}</title>
      <meta name="description" content={`Withdraw from your ${shopName} order ${number}.`} />
      <h1 className="order-page__title">{title}</h1>
      <dl className="order-page__facts">
        <div>
          <dt>Order</dt>
          <dd>{number}</dd>
        </div>
        <div>
          <dt>Ordered</dt>
          <dd>
            <time dateTime={loaderData.createdAt}>{loaderData.placedAt}</time>
          </dd>
        </div>
        {offer.periodEndsAtText ? (
          <div>
            <dt>You may withdraw until</dt>
            <dd>{offer.periodEndsAtText}</dd>
          </div>
        ) : null}
      </dl>
      <Form method="post" className="withdrawal-page__form" aria-describedby={actionData?.error ? errorId : undefined}>
        <input type="hidden" name="key" value={key} />
        <fieldset className="withdrawal-page__lines">
          <legend>Items you withdraw from</legend>
          {offer.lines.map((line) => (
            <div key={line.index} className="withdrawal-page__line">
              <input
                type="checkbox"
                id={`line-${line.index}`}
                name={`line-${line.index}`}
                defaultChecked
                aria-describedby={actionData?.error ? errorId : undefined}
              />
              <label htmlFor={`line-${line.index}`}>
                {line.quantity} × {line.title}
                {line.options ? ` (${line.options})` : ""}
              </label>
            </div>
          ))}
        </fieldset>
        <dl className="order-page__facts">
          <div>
            <dt>Name</dt>
            <dd>{offer.name}</dd>
          </div>
          <div>
            <dt>E-mail</dt>
            <dd className="order-page__email">{offer.email}</dd>
          </div>
        </dl>
        {actionData?.error ? (
          <p id={errorId} className="field-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
        <button type="submit" className="button" disabled={navigation.state === "submitting"}>
          Confirm withdrawal
        </button>
      </Form>
    </main>
  );
}
