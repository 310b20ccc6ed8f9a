import type { Page, Route } from "@playwright/test";

/**
 * A stand-in for Stripe.js, served at the address @stripe/stripe-js loads it from (https://js.stripe.com/endive/
 * stripe.js: the release train of the @stripe/stripe-js version we ship; it then takes `window.Stripe`). It is a test
 * fixture of a third-party script a test run offline cannot fetch, not a mock of our code: the shop's page, its
 * Payment Element component and its server all run as they are.
 *
 * It records what the page hands Stripe.js (publishable key, elements options, element type and options,
 * confirmPayment's parameters) through `recordStripeJsCall`, and confirms the payment for real: as Stripe.js does, it
 * POSTs to https://api.stripe.com/v1/payment_intents/{id}/confirm with the publishable key and the client secret,
 * which the story routes to the test processor, the same processor the shop's server created the intent on.
 */
export type StandInMethod =
  /** A card, confirmed as Stripe.js confirms cards (`use_stripe_sdk`: nothing leaves the page). */
  | { kind: "card"; number: string }
  /** A test PaymentMethod, e.g. `pm_card_processing`. */
  | { kind: "payment-method"; id: string }
  /**
   * A method that leaves the page (a bank's or a wallet's): no `use_stripe_sdk`, so the processor answers
   * `redirect_to_url` and, as Stripe.js does, the stand-in sends the browser there.
   */
  | { kind: "redirecting-card"; number: string };

export interface StripeJsCall {
  name: "Stripe" | "elements" | "create" | "confirmPayment";
  args: unknown;
}

/** Routes Stripe.js to the stand-in and Stripe's API to `apiOrigin`, and records the page's calls into `calls`. */
export async function serveStripeJsStandIn(
  page: Page,
  { method, apiOrigin, calls }: { method: StandInMethod; apiOrigin: string; calls: StripeJsCall[] },
) {
  await page.exposeFunction(
    "recordStripeJsCall",
    (name: StripeJsCall["name"], args: unknown) => void calls.push({ name, args }),
  );
  await page.route(/^https:\/\/js\.stripe\.com\/endive\/stripe\.js(\?.*)?$/, (route) =>
    route.fulfill({ status: 200, contentType: "text/javascript", body: standInSource(method) }),
  );
  await page.route("https://api.stripe.com/**", async (route: Route) => {
    const url = new URL(route.request().url());
    const response = await route.fetch({ url: `${apiOrigin}${url.pathname}${url.search}` });
    // api.stripe.com answers any origin; so does the processor run alone, but say it here whatever it was sent.
    await route.fulfill({ response, headers: { ...response.headers(), "access-control-allow-origin": "*" } });
  });
}

function standInSource(method: StandInMethod): string {
  const fields =
    method.kind === "payment-method"
      ? { payment_method: method.id, use_stripe_sdk: "true" }
      : {
          "payment_method_data[type]": "card",
          "payment_method_data[card][number]": method.number,
          "payment_method_data[card][exp_month]": "12",
          "payment_method_data[card][exp_year]": String(new Date().getUTCFullYear() + 3),
          "payment_method_data[card][cvc]": "123",
          ...(method.kind === "card" ? { use_stripe_sdk: "true" } : {}),
        };
  return `"use strict";
(() => {
  const record = (name, args) => window.recordStripeJsCall(name, JSON.parse(JSON.stringify(args ?? null)));
  const methodFields = ${JSON.stringify(fields)};
  function Stripe(publishableKey, options) {
    record("Stripe", { publishableKey, options });
    let current = null;
    return {
      _registerWrapper() {},
      elements(options) {
        record("elements", options);
        const elements = { options };
        elements.create = (type, elementOptions) => {
          record("create", { type, options: elementOptions });
          const listeners = [];
          return {
            on(event, handler) { if (event === "change") listeners.push(handler); },
            mount(host) {
              const note = document.createElement("p");
              note.textContent = "Stripe.js stand-in: the test payment method is filled in.";
              host.append(note);
              setTimeout(() => listeners.forEach((handler) => handler({ elementType: type, empty: false, complete: true })));
            },
            update() {},
            destroy() {},
          };
        };
        current = elements;
        return elements;
      },
      async confirmPayment({ elements, confirmParams, redirect }) {
        record("confirmPayment", { sameElements: elements === current, confirmParams, redirect });
        const clientSecret = elements.options.clientSecret;
        const id = clientSecret.split("_secret_")[0];
        const body = new URLSearchParams({ key: publishableKey, client_secret: clientSecret, return_url: confirmParams.return_url, ...methodFields });
        const response = await fetch("https://api.stripe.com/v1/payment_intents/" + id + "/confirm", { method: "POST", body });
        const answer = await response.json();
        if (!response.ok) return { error: answer.error };
        const next = answer.next_action;
        if (next && next.type === "redirect_to_url") {
          // As Stripe.js with redirect: "if_required": a method that must leave the page leaves it.
          window.location.assign(next.redirect_to_url.url);
          return new Promise(() => {});
        }
        return { paymentIntent: answer };
      },
    };
  }
  Stripe.version = "endive";
  window.Stripe = Stripe;
})();
`;
}
