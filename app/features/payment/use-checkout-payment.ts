import { useCallback, useEffect, useEffectEvent, useState, type RefObject } from "react";
import { useNavigate, useRevalidator } from "react-router";
import type { ErrorBody } from "../../../shared/errors";
import type { CardEntryController, ConfirmOutcome } from "./card-entry-types";

const SHOP_UNREACHABLE = "We couldn't reach the shop to prepare your payment. Check your connection and try again.";
const RECORD_ATTEMPTS = 3;

interface CheckoutPaymentInput {
  totalCents: number;
  /** Changes whenever the basket's contents do: a new basket needs a newly priced payment. */
  basketKey: string;
  isEmpty: boolean;
  /** The card entry on the page: it confirms the payment with its processor. */
  cardEntry: RefObject<CardEntryController | null>;
}

/**
 * The payment page's states: ask the server for a payment priced from its basket (again whenever the basket
 * changes), confirm the card with the processor, let the shopper authenticate when the bank asks, then have the
 * server record the order and go to /orders. Any failure comes back as one sentence, with the button usable again.
 */
export function useCheckoutPayment({ totalCents, basketKey, isEmpty, cardEntry }: CheckoutPaymentInput) {
  const navigate = useNavigate();
  const { revalidate } = useRevalidator();
  // The client secret belongs to the basket it was priced for; a secret for another basket is never used.
  const [prepared, setPrepared] = useState<{ key: string; clientSecret: string } | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [isProcessing, setProcessing] = useState(false);
  const [hasSucceeded, setSucceeded] = useState(false);
  const [isChallenged, setChallenged] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requestKey = `${basketKey}:${totalCents}:${attempt}`;
  const clientSecret = prepared?.key === requestKey ? prepared.clientSecret : null;

  // Not a dependency of the effect below: a new revalidate function must not restart (and abort) the request.
  const reloadBasket = useEffectEvent(() => void revalidate());

  useEffect(() => {
    if (isEmpty || hasSucceeded) return;
    const controller = new AbortController();
    fetch(`/payments/create?total=${totalCents}`, { method: "POST", signal: controller.signal })
      .then(async (response) => {
        const body = (await response.json().catch(() => null)) as ({ clientSecret?: string } & Partial<ErrorBody>) | null;
        if (response.ok && body?.clientSecret) {
          setPrepared({ key: requestKey, clientSecret: body.clientSecret });
          return;
        }
        setError(body?.error?.message ?? SHOP_UNREACHABLE);
        // The basket changed under this page: fetch the current one, which prices a new payment.
        if (response.status === 409) reloadBasket();
      })
      .catch(() => {
        if (!controller.signal.aborted) setError(SHOP_UNREACHABLE);
      });
    return () => controller.abort();
  }, [requestKey, totalCents, isEmpty, hasSucceeded]);

  const finish = useCallback(
    async (outcome: ConfirmOutcome) => {
      if (outcome.status === "failed") {
        setError(outcome.message);
        setProcessing(false);
        return;
      }
      if (outcome.status === "requires_action") {
        setChallenged(true);
        return;
      }
      // Not a failure: the return page says so, and records the order if the payment has succeeded by then.
      if (outcome.status === "processing") {
        setSucceeded(true);
        await navigate(`/payment/return?payment_intent=${encodeURIComponent(outcome.paymentIntentId)}`, { replace: true });
        return;
      }
      // Paid. The server checks the payment with the processor and records the order; the processor's webhook
      // records it too, so even if these calls fail the order is not lost.
      for (let tries = 0; tries < RECORD_ATTEMPTS; tries++) {
        const recorded = await fetch("/orders/record", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ paymentIntentId: outcome.paymentIntentId }),
        }).then(
          // A refusal (4xx) is the server's final word: the orders page says what became of the payment.
          (response) => response.status < 500,
          () => false,
        );
        if (recorded) break;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** tries));
      }
      setSucceeded(true);
      await navigate("/orders", { replace: true });
    },
    [navigate],
  );

  const buy = useCallback(async () => {
    const entry = cardEntry.current;
    if (!clientSecret || !entry) return;
    setError(null);
    setProcessing(true);
    await finish(await entry.confirm(clientSecret));
  }, [clientSecret, cardEntry, finish]);

  const answerChallenge = useCallback(
    async (answer: "complete" | "fail") => {
      setChallenged(false);
      const entry = cardEntry.current;
      if (!clientSecret || !entry) return;
      await finish(await entry.authenticate(clientSecret, answer));
    },
    [clientSecret, cardEntry, finish],
  );

  const retry = useCallback(() => {
    setError(null);
    setAttempt((count) => count + 1);
  }, []);

  return { clientSecret, isProcessing, hasSucceeded, isChallenged, error, buy, answerChallenge, retry, clearError: () => setError(null) };
}
