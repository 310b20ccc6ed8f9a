// The payment page's payment: created or renewed for the basket as priced, confirmed, and recorded as an order.

import { useCallback, useEffect, useEffectEvent, useState, type RefObject } from "react";
import { useNavigate, useRevalidator } from "react-router";
import type { ErrorBody } from "#shared/errors";
import type { CardEntryController, ConfirmOutcome } from "./card-entry-types";

const SHOP_UNREACHABLE = "We couldn't reach the shop to prepare your payment. Check your connection and try again.";
const RECORD_ATTEMPTS = 3;

interface CheckoutPaymentInput {
  totalCents: number;
  /** Changes whenever the basket's contents do: a new basket needs a newly priced payment. */
  basketKey: string;
  isEmpty: boolean;
  /** No payment is prepared before there is a delivery address: the server would refuse it. */
  hasAddress: boolean;
  /** The card entry on the page: it confirms the payment with its processor. */
  cardEntry: RefObject<CardEntryController | null>;
}

/**
 * The payment page's states: ask the server for a payment priced from its basket (again whenever the basket
 * changes), confirm the card with the processor, let the shopper authenticate when the bank asks, then have the
 * server record the order and go to /orders. Any failure comes back as one sentence, with the button usable again.
 */
export function useCheckoutPayment({ totalCents, basketKey, isEmpty, hasAddress, cardEntry }: CheckoutPaymentInput) {
  const navigate = useNavigate();
  const { revalidate } = useRevalidator();
  // The client secret belongs to the basket it was priced for; a secret for another basket is never used.
  const [prepared, setPrepared] = useState<{ key: string; clientSecret: string } | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [isProcessing, setProcessing] = useState(false);
  const [hasSucceeded, setSucceeded] = useState(false);
  const [isChallenged, setChallenged] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [paidOrderNumber, setPaidOrderNumber] = useState<string | null>(null);
  const requestKey = `${basketKey}:${totalCents}:${attempt}`;
  const clientSecret = prepared?.key === requestKey ? prepared.clientSecret : null;

  // Not a dependency of the effect below: a new revalidate function must not restart (and abort) the request.
  const reloadBasket = useEffectEvent(() => void revalidate());

  useEffect(() => {
    if (isEmpty || !hasAddress || hasSucceeded) return;
    const controller = new AbortController();
    fetch(`/payments/create?total=${totalCents}`, { method: "POST", signal: controller.signal })
      .then(async (response) => {
        const body = (await response.json().catch(() => null)) as
          ({ clientSecret?: string } & Partial<ErrorBody>) | null;
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
  }, [requestKey, totalCents, isEmpty, hasAddress, hasSucceeded]);

  const finish = useCallback(
    async (outcome: ConfirmOutcome) => {
      if (outcome.status === "failed") {
        // Paid already, in another tab: the processor refuses a second confirmation. The shop's own record says so,
        // in its own words, with a link to the order.
        const paid = clientSecret ? await recordOrder(intentIdOf(clientSecret)) : null;
        if (paid?.orderNumber) {
          setPaidOrderNumber(paid.orderNumber);
          setSucceeded(true);
          setError(`This order is already paid: it is order ${paid.orderNumber}.`);
        } else {
          setError(outcome.message);
        }
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
        await navigate(`/payment/return?payment_intent=${encodeURIComponent(outcome.paymentIntentId)}`, {
          replace: true,
        });
        return;
      }
      // Paid. The server checks the payment with the processor and records the order; the processor's webhook
      // records it too, so even if these calls fail the order is not lost. The page moves on only once the order is
      // recorded (or the server has said why not), so /orders shows it; if the shop cannot be reached, /orders says
      // the order is being confirmed.
      let answer: RecordAnswer | null = null;
      for (let tries = 0; tries < RECORD_ATTEMPTS; tries++) {
        answer = await recordOrder(outcome.paymentIntentId);
        if (answer) break;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** tries));
      }
      setSucceeded(true);
      const next = answer?.orderNumber
        ? `/orders?placed=${encodeURIComponent(answer.orderNumber)}`
        : answer
          ? "/orders"
          : "/orders?confirming=1";
      await navigate(next, { replace: true });
    },
    [navigate, clientSecret],
  );

  const buy = useCallback(async () => {
    const entry = cardEntry.current;
    if (!clientSecret || !entry) return;
    setError(null);
    setProcessing(true);
    // Priced again at the moment of paying: a rate, a delivery option or the basket may have changed since the page
    // prepared its payment (an operator's new rate, another tab). A different total is a 409 with the new total, and
    // no card is charged.
    const repriced = await fetch(`/payments/create?total=${totalCents}`, { method: "POST" }).then(
      async (response) => ({
        response,
        body: (await response.json().catch(() => null)) as ({ clientSecret?: string } & Partial<ErrorBody>) | null,
      }),
      () => null,
    );
    const refusal = repriced?.body?.error;
    if (repriced?.response.status === 409 || refusal?.code === "NOT_DELIVERABLE") {
      setError(refusal?.message ?? SHOP_UNREACHABLE);
      setProcessing(false);
      void revalidate();
      return;
    }
    // Anything else (the basket already paid in another tab and emptied, the shop out of reach) is the payment's own
    // to answer: the processor refuses a payment already made, and the page says which order it became.
    await finish(await entry.confirm(repriced?.body?.clientSecret ?? clientSecret));
  }, [clientSecret, cardEntry, finish, totalCents, revalidate]);

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

  return {
    clientSecret,
    isProcessing,
    hasSucceeded,
    isChallenged,
    error,
    paidOrderNumber,
    buy,
    answerChallenge,
    retry,
    clearError: () => setError(null),
  };
}

/** The server's answer to recording a payment: the order's number, or {} for a refusal (its final word); null: try again. */
type RecordAnswer = { orderNumber?: string };

async function recordOrder(paymentIntentId: string): Promise<RecordAnswer | null> {
  try {
    const response = await fetch("/orders/record", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paymentIntentId }),
    });
    if (response.status >= 500) return null;
    if (!response.ok) return {};
    const body = (await response.json().catch(() => ({}))) as { orderNumber?: unknown };
    return typeof body.orderNumber === "string" ? { orderNumber: body.orderNumber } : {};
  } catch {
    return null;
  }
}

/** "pi_123_secret_abc" → "pi_123": a client secret begins with its intent's id. */
function intentIdOf(clientSecret: string): string {
  return clientSecret.split("_secret_")[0] ?? "";
}
