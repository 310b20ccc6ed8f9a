// No imports: browser stories and the server's tests both use this, and so can any script.

/** Confirms a card the way the payment page does: straight to the processor, with the publishable key. */
export async function confirmCard(
  origin: string,
  clientSecret: string,
  publishableKey: string,
  number: string,
  /** How the request is sent: over HTTP, or (a test counting a step's statements) to the app in process. */
  send: (url: string, init: RequestInit) => Response | Promise<Response> = fetch,
) {
  const intentId = clientSecret.split("_secret_")[0];
  const response = await send(new URL(`/_processor/v1/payment_intents/${intentId}/confirm`, origin).href, {
    method: "POST",
    headers: { authorization: `Bearer ${publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_secret: clientSecret,
      // As Stripe.js's card path sends it: the page handles 3-D Secure itself, so no return_url is needed.
      use_stripe_sdk: "true",
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": number,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": "2034",
      "payment_method_data[card][cvc]": "123",
      "payment_method_data[billing_details][address][postal_code]": "90001",
    }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { id?: string; status?: string; error?: { code?: string; message?: string } },
  };
}
