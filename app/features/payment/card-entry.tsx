// Entering the card: the test processor's card field or Stripe's Payment Element, whichever the shop runs with.

import { lazy, Suspense, useImperativeHandle, useRef, type Ref } from "react";
import { builtInProcessor, type CardDetails } from "@storefront/stripe-test-processor/browser";
import { CardField } from "@storefront/stripe-test-processor/card-field";
import type { PaymentClientConfig } from "#shared/payments";
import type { CardEntryController, CardEntryState } from "./card-entry-types";

export type { CardEntryController, CardEntryState, ConfirmOutcome } from "./card-entry-types";
/** The test processor's card field stylesheet; the payment page links it. */
export { default as cardFieldStyles } from "@storefront/stripe-test-processor/card-field.css?url";

interface CardEntryProps {
  config: PaymentClientConfig;
  /** The intent being paid: the Payment Element is created for it (the built-in field needs it only to confirm). */
  clientSecret: string | null;
  errorId: string;
  disabled: boolean;
  onChange(state: CardEntryState): void;
  controller: Ref<CardEntryController | null>;
}

// Stripe.js is loaded only in Stripe mode, and only by the page that takes a card.
const StripePaymentElement = lazy(() => import("./stripe-payment-element"));

/**
 * The one place the payment page's card entry differs between processors: the built-in processor's own field, or
 * Stripe's Payment Element (docs/decisions/007-stripe-mode.md).
 */
export function CardEntry({ config, clientSecret, errorId, disabled, onChange, controller }: CardEntryProps) {
  if (cardEntryFor(config) === "stripe") {
    return (
      <Suspense fallback={<p className="card-entry__loading">Loading the secure card field…</p>}>
        <StripePaymentElement
          publishableKey={config.publishableKey}
          clientSecret={clientSecret}
          disabled={disabled}
          onChange={onChange}
          controller={controller}
        />
      </Suspense>
    );
  }
  return (
    <BuiltInCardEntry
      publishableKey={config.publishableKey}
      processorUrl={config.processorUrl}
      errorId={errorId}
      disabled={disabled}
      onChange={onChange}
      controller={controller}
    />
  );
}

/** Which card entry a processor needs. */
export function cardEntryFor(config: PaymentClientConfig): "stripe" | "built-in" {
  return config.mode === "stripe" ? "stripe" : "built-in";
}

function BuiltInCardEntry({
  publishableKey,
  processorUrl,
  errorId,
  disabled,
  onChange,
  controller,
}: Omit<CardEntryProps, "config" | "clientSecret"> & { publishableKey: string; processorUrl: string }) {
  const card = useRef<CardDetails | null>(null);
  useImperativeHandle(
    controller,
    () => ({
      confirm: (clientSecret) =>
        card.current
          ? builtInProcessor.confirmCardPayment(processorUrl, clientSecret, publishableKey, card.current)
          : Promise.resolve({ status: "failed", message: "Your card number is incomplete." }),
      authenticate: (clientSecret, answer) =>
        builtInProcessor.authenticate(processorUrl, clientSecret, publishableKey, answer),
    }),
    [publishableKey, processorUrl],
  );
  return (
    <CardField
      errorId={errorId}
      disabled={disabled}
      onChange={(state) => {
        card.current = state.card;
        onChange({ empty: state.empty, complete: state.complete && state.card !== null, error: state.error });
      }}
    />
  );
}
