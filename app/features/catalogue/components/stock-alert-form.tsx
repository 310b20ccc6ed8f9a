// "Notify me when available" under an out-of-stock variant, a plain form or a fetcher.

import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { EMAIL_MAX_LENGTH, STOCK_ALERT_SENTENCES, type StockAlertAnswer } from "#shared/stock-alerts";

/**
 * "Notify me when available" under an out-of-stock variant: an e-mail address (the signed-in shopper's, filled in)
 * posted to the product page's action. Without JavaScript it is a plain form post and the page comes back with the
 * answer; with it a fetcher sends it and the answer replaces the form where it stands. Errors show under the field.
 * Mount it with the variant as its key, so choosing another variant starts afresh.
 */
export function StockAlertForm({
  action,
  variantId,
  defaultEmail,
  answer,
}: {
  action: string;
  variantId: string;
  defaultEmail: string;
  answer: StockAlertAnswer | undefined;
}) {
  const fetcher = useFetcher<StockAlertAnswer>();
  const input = useRef<HTMLInputElement>(null);
  // A fetcher's answer, else the answer of the plain post that rendered this page (for this variant only).
  const shown = fetcher.data ?? (answer?.variantId === variantId ? answer : undefined);
  const errors = shown && "errors" in shown ? shown.errors : {};
  const message = errors.email ?? errors.form;
  useEffect(() => {
    if (fetcher.data && "errors" in fetcher.data) input.current?.focus();
  }, [fetcher.data]);

  if (shown && "outcome" in shown) {
    return (
      <p className="stock-alert stock-alert__done" role="status">
        {STOCK_ALERT_SENTENCES[shown.outcome]}
      </p>
    );
  }
  return (
    // noValidate: the shop's own rules and messages apply, the same with or without JavaScript.
    <fetcher.Form method="post" action={action} className="stock-alert" noValidate preventScrollReset>
      <input type="hidden" name="intent" value="stock-alert" />
      <input type="hidden" name="variantId" value={variantId} />
      <label htmlFor="stock-alert-email">Your e-mail</label>
      <input
        ref={input}
        id="stock-alert-email"
        name="email"
        type="email"
        autoComplete="email"
        inputMode="email"
        maxLength={EMAIL_MAX_LENGTH}
        defaultValue={shown?.email ?? defaultEmail}
        required
        {...invalidFieldProps("stock-alert-email", message)}
      />
      <FieldError fieldId="stock-alert-email" message={message} className="stock-alert__error" />
      <button type="submit" className="button stock-alert__submit" disabled={fetcher.state !== "idle"}>
        Notify me when available
      </button>
    </fetcher.Form>
  );
}
