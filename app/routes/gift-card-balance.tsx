// /gift-cards/balance: a gift card's balance by its number, which travels in the form's body only.

import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/gift-card-balance";
import { requestContext } from "#app/context";
import { readFormOrRefuse } from "#app/form-request";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { useShopName } from "#app/features/shell/use-shop-name";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { formatOrderDate } from "#shared/dates";
import { giftCardBalanceSchema, giftCardName, GIFT_CARD_REFUSALS } from "#shared/gift-cards";

type Answer = { balance: string; name: string; expires: string | null } | { error: string };

/**
 * /gift-cards/balance: a gift card's number gives its balance (and, for a card issued with an expiry, until when).
 * The number travels in the form's body, never the address, so it stays out of request logs and browser history;
 * wrong numbers are limited as at /payment.
 */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const parsed = giftCardBalanceSchema.safeParse(await readFormOrRefuse(request));
  if (!parsed.success) return data<Answer>({ error: GIFT_CARD_REFUSALS.invalid }, { status: 400 });
  try {
    const found = await services.giftCards.balanceOf(parsed.data.code, {
      sessionId: shopper.session?.id ?? null,
      ip: clientIp,
    });
    if (!found.ok) return data<Answer>({ error: found.message }, { status: 404 });
    return {
      balance: formatCents(found.availableCents),
      name: giftCardName(found.lastFour),
      expires: found.expiresAt ? formatOrderDate(new Date(found.expiresAt.getTime() - 1), "UTC") : null,
    } satisfies Answer;
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 429) throw error;
    return data<Answer>(
      { error: error.message },
      { status: 429, headers: { "Retry-After": String(error.retryAfterSeconds ?? 3600) } },
    );
  }
}

export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
}

export default function GiftCardBalance({ actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const isBusy = useNavigation().state !== "idle";
  const error = actionData && "error" in actionData ? actionData.error : undefined;
  return (
    <main id="main" className="status-page gift-card-balance">
      <title>{`Gift card balance | ${shopName}`}</title>
      <h1>Gift card balance</h1>
      <Form method="post" className="gift-card-form" noValidate>
        <p className="gift-card-form__field">
          <label htmlFor="gift-card-code">Gift card number</label>
          <input
            id="gift-card-code"
            name="code"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={64}
            {...invalidFieldProps("gift-card-code", error)}
          />
          <FieldError fieldId="gift-card-code" message={error} />
        </p>
        <button type="submit" className="button button--primary" disabled={isBusy}>
          Check balance
        </button>
      </Form>
      {actionData && "balance" in actionData ? (
        <p role="status" className="gift-card-balance__answer">
          {`${actionData.name}: `}
          <strong>{actionData.balance}</strong>
          {actionData.expires ? ` (can be used until ${actionData.expires})` : ""}
        </p>
      ) : null}
    </main>
  );
}
