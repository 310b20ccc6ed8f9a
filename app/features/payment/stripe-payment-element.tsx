// Stripe's Payment Element for the current intent, confirming with a return to /payment/return when a method leaves the
// page.

import { useEffect, useImperativeHandle, useRef, useState, type Ref } from "react";
import type { Stripe, StripeElements, StripePaymentElement, StripePaymentElementOptions } from "@stripe/stripe-js";
import type { CardEntryController, CardEntryState, ConfirmOutcome } from "./card-entry-types";

interface StripePaymentElementProps {
  publishableKey: string;
  /** The intent the element is for; it is created for each new one (a changed basket may bring another). */
  clientSecret: string | null;
  disabled: boolean;
  onChange(state: CardEntryState): void;
  controller: Ref<CardEntryController | null>;
}

const NOT_READY: ConfirmOutcome = {
  status: "failed",
  message: "The payment form is still loading. Please try again in a moment.",
};
const NOT_COMPLETED_MESSAGE = "Your payment could not be completed. Please try again.";
const NOT_COMPLETED: ConfirmOutcome = { status: "failed", message: NOT_COMPLETED_MESSAGE };

/** The Payment Element's options: the methods the intent allows (the Dashboard's choice), in tabs, US addresses not assumed. */
export const PAYMENT_ELEMENT_OPTIONS: StripePaymentElementOptions = { layout: "tabs" };

/** Where Stripe sends a shopper back after a method that leaves the page (a bank's page, a wallet): the return page. */
export function returnUrl(): string {
  return new URL("/payment/return", window.location.href).toString();
}

/**
 * Stripe's Payment Element, from Stripe.js loaded off Stripe's own site with the publishable key (imported from
 * `@stripe/stripe-js/pure`, which fetches the script only when loadStripe is called). Confirmed with
 * `redirect: "if_required"`: cards (and their 3-D Secure, in Stripe's modal) finish on this page; a method that must
 * leave it comes back to /payment/return, which records the order the same way.
 */
export default function StripePaymentElement({
  publishableKey,
  clientSecret,
  disabled,
  onChange,
  controller,
}: StripePaymentElementProps) {
  const host = useRef<HTMLDivElement>(null);
  const stripe = useRef<{ client: Stripe; elements: StripeElements; element: StripePaymentElement } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const reportChange = useRef(onChange);
  useEffect(() => {
    reportChange.current = onChange;
  });

  useEffect(() => {
    let isCancelled = false;
    let element: StripePaymentElement | undefined;
    void (async () => {
      try {
        const { loadStripe } = await import("@stripe/stripe-js/pure");
        const client = await loadStripe(publishableKey);
        if (!client || isCancelled || !host.current || !clientSecret) return;
        const elements = client.elements({ clientSecret });
        element = elements.create("payment", PAYMENT_ELEMENT_OPTIONS);
        // The element shows its own field errors; the page needs only whether it is filled in.
        element.on("change", (event) =>
          reportChange.current({ empty: event.empty, complete: event.complete, error: null }),
        );
        element.mount(host.current);
        stripe.current = { client, elements, element };
      } catch {
        if (!isCancelled)
          setLoadError("We couldn't load the secure card field. Check your connection and reload the page.");
      }
    })();
    return () => {
      isCancelled = true;
      element?.destroy();
      stripe.current = null;
    };
  }, [publishableKey, clientSecret]);

  useEffect(() => {
    stripe.current?.element.update({ readOnly: disabled });
  }, [disabled]);

  useImperativeHandle(
    controller,
    () => ({
      async confirm() {
        const current = stripe.current;
        if (!current) return NOT_READY;
        const { paymentIntent, error } = await current.client.confirmPayment({
          elements: current.elements,
          confirmParams: { return_url: returnUrl() },
          redirect: "if_required",
        });
        if (error) return { status: "failed", message: error.message ?? NOT_COMPLETED_MESSAGE };
        if (paymentIntent.status === "succeeded") return { status: "succeeded", paymentIntentId: paymentIntent.id };
        if (paymentIntent.status === "processing") return { status: "processing", paymentIntentId: paymentIntent.id };
        return NOT_COMPLETED;
      },
      // Stripe.js has already run any authentication inside confirmPayment.
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
