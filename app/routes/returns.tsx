// /returns: the shop's return terms, how to withdraw, and "Find an order".

import type { Route } from "./+types/returns";
import { requestContext } from "#app/context";
import { PlainTextPage } from "#app/features/legal/plain-text-page";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { LEGAL_PAGE_TITLES } from "#shared/shop-settings";
import { data, redirect } from "react-router";
import { readFormOrRefuse } from "#app/form-request";
import { fieldErrorsOf } from "#shared/form-errors";
import { findOrderSchema } from "#shared/return-schemas";
import { FindOrderForm } from "#app/features/orders/find-order-form";
import { WithdrawalHowTo } from "#app/features/orders/withdrawal-how-to";

/** Said whichever of the number and the e-mail is wrong: the form tells nobody which orders exist. */
const NOT_FOUND = "We could not find an order with that number and e-mail. Check both and try again.";

/** "Find an order": to the order's page by its signed link, where its returns are asked for. */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const parsed = findOrderSchema.safeParse(fields);
  if (!parsed.success) return data({ errors: fieldErrorsOf(parsed.error), values: fields }, { status: 400 });
  try {
    const path = await services.findOrder.find(parsed.data.orderNumber, parsed.data.email, {
      sessionId: shopper.session?.id ?? null,
      ip: clientIp,
    });
    if (!path) return data({ errors: { form: NOT_FOUND }, values: fields }, { status: 404 });
    return redirect(path);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 429) throw error;
    return data(
      { errors: { form: error.message }, values: fields },
      { status: 429, headers: { "Retry-After": String(error.retryAfterSeconds ?? 3600) } },
    );
  }
}

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const [settings, policy] = await Promise.all([services.settings.current(), services.settings.returnPolicy()]);
  return { text: settings.legalTexts.returns, shopName: settings.name, policy };
}

/** The returns page: the window, fee and address the settings hold, then the shop's own words. */
export default function Returns({ loaderData, actionData }: Route.ComponentProps) {
  const { policy, shopName } = loaderData;
  const days = `${policy.windowDays} ${policy.windowDays === 1 ? "day" : "days"}`;
  return (
    <PlainTextPage
      title={LEGAL_PAGE_TITLES.returns}
      text={loaderData.text}
      shopName={shopName}
      description={`How to return an item to ${shopName}: within ${days} of delivery.`}
      summary={
        <>
          <dl className="legal__facts">
            <dt>Return window</dt>
            <dd>{policy.windowDays === 0 ? "We do not take returns." : `${days} from delivery`}</dd>
            <dt>Return fee</dt>
            <dd>{policy.feeCents === 0 ? "Free" : formatCents(policy.feeCents)}</dd>
            {policy.address ? (
              <>
                <dt>Send returns to</dt>
                <dd>
                  {policy.address.split("\n").map((line, index) => (
                    <span key={index} className="legal__address-line">
                      {line}
                    </span>
                  ))}
                </dd>
              </>
            ) : null}
          </dl>
          <p>
            To return an item, open your order from its e-mail or your account and choose "Return or replace items".
          </p>
          <WithdrawalHowTo />
          <FindOrderForm errors={actionData?.errors} values={actionData?.values} />
        </>
      }
    />
  );
}
