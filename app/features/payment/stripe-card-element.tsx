import { useEffect, useImperativeHandle, useRef, useState, type Ref } from "react";
import type { Stripe, StripeCardElement as CardElement } from "@stripe/stripe-js";
import type { CardEntryController, CardEntryState, ConfirmOutcome } from "./card-entry-types";

interface StripeCardElementProps {
  publishableKey: string;
  disabled: boolean;
  onChange(state: CardEntryState): void;
  controller: Ref<CardEntryController | null>;
}

const NOT_READY: ConfirmOutcome = { status: "failed", message: "The card field is still loading. Please try again in a moment." };

/**
 * Stripe's Card Element, from Stripe.js loaded off Stripe's own site with the publishable key. Imported from
 * `@stripe/stripe-js/pure`, which fetches the script only when loadStripe is called (the plain entry would load it
 * as soon as the module is imported, on every page). 3-D Secure runs inside confirmCardPayment, in Stripe's modal.
 */
export default function StripeCardElement({ publishableKey, disabled, onChange, controller }: StripeCardElementProps) {
  const host = useRef<HTMLDivElement>(null);
  const stripe = useRef<{ client: Stripe; card: CardElement } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const reportChange = useRef(onChange);
  useEffect(() => {
    reportChange.current = onChange;
  });

  useEffect(() => {
    let isCancelled = false;
    let card: CardElement | undefined;
    void (async () => {
      try {
        const { loadStripe } = await import("@stripe/stripe-js/pure");
        const client = await loadStripe(publishableKey);
        if (!client || isCancelled || !host.current) return;
        card = client.elements().create("card", { hidePostalCode: false });
        card.on("change", (event) => reportChange.current({ empty: event.empty, complete: event.complete, error: event.error?.message ?? null }));
        card.mount(host.current);
        stripe.current = { client, card };
      } catch {
        if (!isCancelled) setLoadError("We couldn't load the secure card field. Check your connection and reload the page.");
      }
    })();
    return () => {
      isCancelled = true;
      card?.destroy();
      stripe.current = null;
    };
  }, [publishableKey]);

  useEffect(() => {
    stripe.current?.card.update({ disabled });
  }, [disabled]);

  useImperativeHandle(
    controller,
    () => ({
      async confirm(clientSecret) {
        const current = stripe.current;
        if (!current) return NOT_READY;
        const { paymentIntent, error } = await current.client.confirmCardPayment(clientSecret, { payment_method: { card: current.card } });
        if (error) return { status: "failed", message: error.message ?? "Your payment could not be completed. Please try again." };
        if (paymentIntent?.status === "succeeded") return { status: "succeeded", paymentIntentId: paymentIntent.id };
        return { status: "failed", message: "Your payment could not be completed. Please try again." };
      },
      // Stripe.js has already run any authentication inside confirm.
      authenticate: async () => NOT_READY,
    }),
    [],
  );

  return (
    <div className="stripe-card">
      <div ref={host} className="stripe-card__element" />
      {loadError ? <p className="payment__error">{loadError}</p> : null}
    </div>
  );
}
