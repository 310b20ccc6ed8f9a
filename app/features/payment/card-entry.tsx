import { lazy, Suspense, useImperativeHandle, useRef, type Ref } from "react";
import { builtInProcessor, type CardDetails } from "@storefront/stripe-test-processor/browser";
import { CardField } from "@storefront/stripe-test-processor/card-field";
import type { PaymentClientConfig } from "../../../shared/payments";
import type { CardEntryController, CardEntryState } from "./card-entry-types";

export type { CardEntryController, CardEntryState, ConfirmOutcome } from "./card-entry-types";
/** The test processor's card field stylesheet; the payment page links it. */
export { default as cardFieldStyles } from "@storefront/stripe-test-processor/card-field.css?url";

interface CardEntryProps {
  config: PaymentClientConfig;
  errorId: string;
  disabled: boolean;
  onChange(state: CardEntryState): void;
  controller: Ref<CardEntryController | null>;
}

// Stripe.js is loaded only in Stripe mode, and only by the page that takes a card.
const StripeCardElement = lazy(() => import("./stripe-card-element"));

/**
 * The one place the payment page's card entry differs between processors: the built-in processor's own field, or
 * Stripe's Card Element (the spec's shop used the Card Element; see docs/decisions/007-stripe-mode.md).
 */
export function CardEntry({ config, errorId, disabled, onChange, controller }: CardEntryProps) {
  if (cardEntryFor(config) === "stripe") {
    return (
      <Suspense fallback={<p className="card-entry__loading">Loading the secure card field…</p>}>
        <StripeCardElement publishableKey={config.publishableKey} disabled={disabled} onChange={onChange} controller={controller} />
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
}: Omit<CardEntryProps, "config"> & { publishableKey: string; processorUrl: string }) {
  const card = useRef<CardDetails | null>(null);
  useImperativeHandle(
    controller,
    () => ({
      confirm: (clientSecret) =>
        card.current
          ? builtInProcessor.confirmCardPayment(processorUrl, clientSecret, publishableKey, card.current)
          : Promise.resolve({ status: "failed", message: "Your card number is incomplete." }),
      authenticate: (clientSecret, answer) => builtInProcessor.authenticate(processorUrl, clientSecret, publishableKey, answer),
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
