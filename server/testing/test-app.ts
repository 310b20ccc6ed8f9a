// The real shop over a test database, without the page renderer, and browsers that call it in process or over HTTP.

import type { DatabaseHandle } from "#server/db/client";
import { createLogger } from "#server/logger";
import { createShop, type ShopOptions } from "#server/shop";

/**
 * The real shop over a test database, assembled as main.ts does, without the page renderer: JSON and form routes,
 * the built-in processor. `app.request()` runs requests in-process; `listen(0)` serves it over real HTTP (which
 * the Stripe SDK needs to reach the processor).
 */
export function createTestShop(database: DatabaseHandle, options: Partial<ShopOptions> = {}) {
  return createShop({
    database,
    logger: createLogger("silent"),
    authAttemptsPerIp: 50,
    // Requests in process name the shop "shop.test" (createBrowser); ALLOWED_HOSTS lets that Host be answered.
    allowedHosts: ["shop.test"],
    newSessionsPerIp: 100_000,
    // Tests make hundreds of payment calls from one address and session; the limits' own tests set them low.
    paymentLimits: {
      createsPerSession: 100_000,
      createsPerIp: 100_000,
      recordsPerSession: 100_000,
      recordsPerIp: 100_000,
    },
    ...options,
  });
}

/**
 * A browser's worth of state for in-process requests: it keeps the session cookie the server sets and
 * sends the headers a same-origin browser would.
 */
export function createBrowser(
  app: { request: (url: string, init?: RequestInit) => Response | Promise<Response> },
  initialCookie?: string,
) {
  // Every cookie the server sets, by name, as a browser keeps them (an operator's sign-in sets the session's and the
  // device's); one cleared (empty) is dropped.
  const jar = new Map<string, string>();
  const keep = (pair: string) => {
    const at = pair.indexOf("=");
    if (at <= 0) return;
    const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    if (value === "") jar.delete(name);
    else jar.set(name, value);
  };
  for (const pair of initialCookie?.split(";") ?? []) keep(pair);
  const cookieHeader = () =>
    jar.size > 0 ? [...jar].map(([name, value]) => `${name}=${value}`).join("; ") : undefined;
  async function send(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    headers.set("host", "shop.test");
    const cookie = cookieHeader();
    if (cookie && !headers.has("cookie")) headers.set("cookie", cookie);
    const response = await app.request(`http://shop.test${path}`, { ...init, headers });
    for (const setCookie of response.headers.getSetCookie()) keep(setCookie.split(";")[0] ?? "");
    return response;
  }
  return {
    /** The Cookie header this browser sends: the session's cookie first. */
    get cookie() {
      return cookieHeader();
    },
    get: (path: string) => send(path),
    postJson: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      send(path, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json", ...headers },
      }),
    postForm: (path: string, fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}) =>
      send(path, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      }),
    send,
  };
}

/** The same as createBrowser, over real HTTP to a listening shop (the processor is reached over HTTP too). */
export function createHttpBrowser(origin: string, initialCookie?: string) {
  return createBrowser(
    {
      request: (url, init) => {
        const headers = new Headers(init?.headers);
        headers.delete("host");
        return fetch(new URL(new URL(url).pathname + new URL(url).search, origin), {
          ...init,
          headers,
          redirect: "manual",
        });
      },
    },
    initialCookie,
  );
}

export { confirmCard } from "./confirm-card";

/** A delivery address that passes every rule: a guest's, with its receipt e-mail. */
export const TEST_DELIVERY_ADDRESS = {
  name: "Ada Lovelace",
  line1: "1 Main Street",
  city: "Los Angeles",
  region: "CA",
  postalCode: "90001",
  country: "US",
  email: "ada@example.com",
} as const;

/** Gives the browser's basket a delivery address, as a shopper does before paying (an account's needs no e-mail). */
export async function addDeliveryAddress(
  browser: { postJson: (path: string, body: unknown) => Promise<Response> },
  { isSignedIn = false } = {},
): Promise<void> {
  const { email, ...address } = TEST_DELIVERY_ADDRESS;
  const response = await browser.postJson("/checkout/address", isSignedIn ? address : { ...address, email });
  if (response.status !== 200)
    throw new Error(`POST /checkout/address answered ${response.status}: ${await response.text()}`);
}
