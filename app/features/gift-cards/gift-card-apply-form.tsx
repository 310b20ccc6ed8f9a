// "Apply" a gift card's number on the payment page.

import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";

/** What the payment page's action answers to "Apply" of a gift card. */
export type GiftCardApplyData = { giftCard: { ok: true } | { ok: false; error: string } };

/**
 * "Gift card or store credit" with "Apply" on /payment: the number goes in the form's body to the payment page's
 * action (a fetcher once the page runs its JavaScript, a plain post without). Applied, the card's line is in the totals
 * ("Gift card ending 7XQ2: -$x") with "Remove"; refused, the sentence is under the field.
 */
export function GiftCardApplyForm() {
  const fetcher = useFetcher<GiftCardApplyData>();
  const input = useRef<HTMLInputElement>(null);
  const refusal = fetcher.data && !fetcher.data.giftCard.ok ? fetcher.data.giftCard.error : undefined;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.giftCard.ok && input.current) input.current.value = "";
  }, [fetcher.state, fetcher.data]);
  return (
    <fetcher.Form method="post" className="gift-card-apply" noValidate preventScrollReset>
      <input type="hidden" name="intent" value="apply-gift-card" />
      <label htmlFor="gift-card-number">Gift card or store credit</label>
      <div className="gift-card-apply__row">
        <input
          ref={input}
          id="gift-card-number"
          name="giftCard"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={64}
          placeholder="XXXX XXXX XXXX XXXX"
          {...invalidFieldProps("gift-card-number", refusal)}
        />
        <button type="submit" className="button" disabled={fetcher.state !== "idle"}>
          Apply
        </button>
      </div>
      <FieldError fieldId="gift-card-number" message={refusal} />
    </fetcher.Form>
  );
}
