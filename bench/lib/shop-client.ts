/**
 * A shopper's calls to the shop's JSON API, as the enhanced pages make them, over plain fetch (which sends no Origin
 * header: the shop refuses state-changing requests that say they come from another site). Used to set up shoppers
 * and to walk through a checkout; sustained load goes through `runLoad()` instead.
 */

/** A catalogue product that is always seeded, and its price in cents. */
export const BENCH_PRODUCT = { id: "12321341", priceCents: 1196 } as const;

export const SESSION_COOKIE = "sf_session";

/**
 * Headers of the basket calls the enhanced pages make (JSON in, JSON out). No Accept-Encoding here: fetch adds its
 * own (and decompresses), while the basket load checks the bodies autocannon hands over, which it cannot decompress.
 */
export const JSON_HEADERS: Record<string, string> = {
  accept: "application/json",
  "content-type": "application/json",
};

/** Give up on one request after this long: the same as autocannon's timeout. */
export const REQUEST_TIMEOUT_MS = 10_000;

export interface TimedResponse {
  status: number;
  headers: Headers;
  body: string;
  /** From just before the request was sent to the last byte of the body, in milliseconds. */
  ms: number;
}

/** One request, timed until its body has been read. Throws on a network error or after REQUEST_TIMEOUT_MS. */
export async function timedFetch(url: string, init: RequestInit = {}): Promise<TimedResponse> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url))
    throw new Error(`refusing to call a non-local URL: ${url}`);
  const started = performance.now();
  const response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
}

/** `sf_session=<token>` from a response's Set-Cookie headers, for later requests' Cookie header. */
export function sessionCookieOf(headers: Headers): string | undefined {
  for (const line of headers.getSetCookie()) {
    const match = new RegExp(`^${SESSION_COOKIE}=([^;]+)`).exec(line);
    if (match) return `${SESSION_COOKIE}=${match[1]}`;
  }
  return undefined;
}

/** A short description of an unexpected answer, for error reports. */
export function describeAnswer(what: string, response: TimedResponse): string {
  const body = response.body.length > 200 ? `${response.body.slice(0, 200)}…` : response.body;
  return `${what}: HTTP ${response.status} ${body.replace(/\s+/g, " ")}`;
}

/**
 * A new guest shopper: the first add without a cookie starts a session (201 and Set-Cookie). Returns the Cookie
 * header value and the response. Throws if the shop does not answer as expected.
 */
export async function newShopper(
  baseUrl: string,
  productId: string = BENCH_PRODUCT.id,
): Promise<{ cookie: string; response: TimedResponse }> {
  const response = await timedFetch(`${baseUrl}/basket/add`, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ productId }),
  });
  if (response.status !== 201) throw new Error(describeAnswer("POST /basket/add (new shopper)", response));
  const cookie = sessionCookieOf(response.headers);
  if (!cookie) throw new Error(`POST /basket/add (new shopper) answered 201 without a ${SESSION_COOKIE} cookie`);
  return { cookie, response };
}

/** The test card that always succeeds without authentication, as the payment page's card field sends it. */
export const TEST_CARD_FIELDS: Record<string, string> = {
  "payment_method_data[type]": "card",
  "payment_method_data[card][number]": "4242424242424242",
  "payment_method_data[card][exp_month]": "12",
  "payment_method_data[card][exp_year]": "2034",
  "payment_method_data[card][cvc]": "123",
  "payment_method_data[billing_details][address][postal_code]": "90001",
};

/**
 * What the payment page's card field needs, from the page's server-rendered HTML (as the browser gets it): the
 * built-in processor's publishable key and its base URL (`processorUrl` in the page's loader data: "/_processor" on
 * the shop when it is mounted, the processor's own origin when it runs as its own process), made absolute. Read by a
 * guest of its own with an item in the basket: /payment sends an empty basket back to /checkout.
 */
export async function findPaymentConfig(baseUrl: string): Promise<PaymentConfig> {
  const { cookie } = await newShopper(baseUrl);
  const response = await timedFetch(`${baseUrl}/payment`, { headers: { accept: "text/html", cookie } });
  if (response.status !== 200) throw new Error(describeAnswer("GET /payment", response));
  const publishableKey = /pk_test_[A-Za-z0-9]+/.exec(response.body)?.[0];
  if (!publishableKey)
    throw new Error(
      "GET /payment: found no publishable key (pk_test_…) in the page (is the shop using real Stripe keys?)",
    );
  // The loader data is a flat JSON array inside a script's string literal: the key, then its value (quotes escaped).
  const processorUrl = /\\?"processorUrl\\?",\\?"([^"\\]+)\\?"/.exec(response.body)?.[1];
  if (!processorUrl) throw new Error("GET /payment: found no processorUrl in the page's payment settings");
  return { publishableKey, processorUrl: new URL(processorUrl, `${baseUrl}/`).href.replace(/\/$/, "") };
}

/** Where a shopper's browser confirms the card, and with which key (`findPaymentConfig`). */
export interface PaymentConfig {
  publishableKey: string;
  /** The processor's base URL: the shop's own "/_processor", or the processor's origin when it runs apart. */
  processorUrl: string;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The basket as the JSON answers carry it (the parts the bench reads). */
export interface BasketAnswer {
  count: number;
  subtotalCents: number;
}

/**
 * `POST /basket/add` for a shopper (or, without a cookie, a new guest: the answer then sets the cookie). Returns the
 * cookie to use from now on, the basket and the timed answer; throws unless the shop answered 201 with a basket.
 */
export async function addToBasket(
  baseUrl: string,
  cookie: string | undefined,
  productId: string = BENCH_PRODUCT.id,
): Promise<{ cookie: string; basket: BasketAnswer; response: TimedResponse }> {
  const response = await timedFetch(`${baseUrl}/basket/add`, {
    method: "POST",
    headers: cookie ? { ...JSON_HEADERS, cookie } : JSON_HEADERS,
    body: JSON.stringify({ productId }),
  });
  if (response.status !== 201) throw new Error(describeAnswer("POST /basket/add", response));
  const basket = (parseJson(response.body) as { basket?: BasketAnswer } | undefined)?.basket;
  if (!basket || typeof basket.subtotalCents !== "number")
    throw new Error(describeAnswer("POST /basket/add: no basket in the answer", response));
  const nextCookie = sessionCookieOf(response.headers) ?? cookie;
  if (!nextCookie) throw new Error(`POST /basket/add answered 201 without a ${SESSION_COOKIE} cookie`);
  return { cookie: nextCookie, basket, response };
}

/** The delivery address every bench shopper pays with (a guest's, so with its receipt e-mail). */
export const BENCH_DELIVERY_ADDRESS = {
  name: "Bench Shopper",
  line1: "1 Main Street",
  city: "Los Angeles",
  region: "CA",
  postalCode: "90001",
  country: "US",
  email: "bench@example.com",
};

/** `POST /checkout/address`: the address the payment page's form saves before a payment can be made. Throws unless 200. */
export async function setDeliveryAddress(baseUrl: string, cookie: string): Promise<void> {
  const response = await fetch(`${baseUrl}/checkout/address`, {
    method: "POST",
    headers: { ...JSON_HEADERS, cookie },
    body: JSON.stringify(BENCH_DELIVERY_ADDRESS),
  });
  if (response.status !== 200) throw new Error(`POST /checkout/address answered ${response.status}`);
}

/**
 * `POST /payments/create?total=…` as the payment page sends it: 201 { clientSecret }. Throws otherwise. The address
 * is saved first, untimed (the page saves it once, the shop's answer to create is what is measured).
 */
export async function createPayment(
  baseUrl: string,
  cookie: string,
  totalCents: number,
): Promise<{ intentId: string; clientSecret: string; response: TimedResponse }> {
  await setDeliveryAddress(baseUrl, cookie);
  const response = await timedFetch(`${baseUrl}/payments/create?total=${totalCents}`, {
    method: "POST",
    headers: { accept: "application/json", cookie },
  });
  if (response.status !== 201) throw new Error(describeAnswer("POST /payments/create", response));
  const clientSecret = (parseJson(response.body) as { clientSecret?: string } | undefined)?.clientSecret ?? "";
  if (!/^pi_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/.test(clientSecret))
    throw new Error(describeAnswer("POST /payments/create: no client secret", response));
  return { intentId: clientSecret.split("_secret_")[0]!, clientSecret, response };
}

/**
 * The card, confirmed straight at the built-in processor with the publishable key, as the payment page's card field
 * does: 200 with status "succeeded". Throws otherwise.
 */
export async function confirmPayment(
  { processorUrl, publishableKey }: PaymentConfig,
  intentId: string,
  clientSecret: string,
): Promise<TimedResponse> {
  const response = await timedFetch(`${processorUrl}/v1/payment_intents/${intentId}/confirm`, {
    method: "POST",
    headers: { authorization: `Bearer ${publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_secret: clientSecret, use_stripe_sdk: "true", ...TEST_CARD_FIELDS }).toString(),
  });
  const body = parseJson(response.body) as { id?: string; status?: string } | undefined;
  if (response.status !== 200 || body?.status !== "succeeded" || body.id !== intentId)
    throw new Error(describeAnswer("POST <processor>/v1/payment_intents/…/confirm", response));
  return response;
}

/** `POST /orders/record` after a confirmed payment: 201 { orderId } (the order is written, the basket emptied). Throws otherwise. */
export async function recordOrder(
  baseUrl: string,
  cookie: string,
  intentId: string,
): Promise<{ orderId: string; response: TimedResponse }> {
  const response = await timedFetch(`${baseUrl}/orders/record`, {
    method: "POST",
    headers: { ...JSON_HEADERS, cookie },
    body: JSON.stringify({ paymentIntentId: intentId }),
  });
  const orderId = (parseJson(response.body) as { orderId?: string } | undefined)?.orderId;
  if (response.status !== 201 || !orderId) throw new Error(describeAnswer("POST /orders/record", response));
  return { orderId, response };
}

/** Pays for the shopper's whole basket (create, confirm, record) and returns the new order's id. */
export async function payForBasket(
  baseUrl: string,
  cookie: string,
  payment: PaymentConfig,
  totalCents: number,
): Promise<string> {
  const { intentId, clientSecret } = await createPayment(baseUrl, cookie, totalCents);
  await confirmPayment(payment, intentId, clientSecret);
  return (await recordOrder(baseUrl, cookie, intentId)).orderId;
}
