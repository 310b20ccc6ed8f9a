// A shopper the fault stories drive over HTTP against production processes, every answer counted by status.

import { TEST_DELIVERY_ADDRESS } from "./test-app";

/**
 * A shopper as the fault stories drive one over HTTP against production processes: pages, basket changes, an
 * account, and payments (create, confirm at the processor as Stripe.js would, record). Every answer is counted by
 * its status; what the story expected and did not get is kept in `failures`.
 */
export const TEST_CARD = {
  "payment_method_data[type]": "card",
  "payment_method_data[card][number]": "4242424242424242",
  "payment_method_data[card][exp_month]": "12",
  "payment_method_data[card][exp_year]": "2034",
  "payment_method_data[card][cvc]": "123",
};

export interface CallResult {
  response?: Response;
  text: string;
  ok: boolean;
  /** The call got no answer at all (refused, reset, or past its own deadline). */
  unanswered: boolean;
  milliseconds: number;
}

export interface TrafficLog {
  /** Every answer by status ("503", "200", ...; "none" for no answer). */
  statuses: Map<string, number>;
  /** Unexpected answers, each with what was asked. */
  failures: string[];
  /** Each call's time and outcome, for the story's own reading (seconds without service, the longest wait). */
  calls: { at: number; status: string; milliseconds: number; what: string; retryAfter: string | null }[];
  /** GETs sent again after their connection closed with no answer, as a browser does. */
  clientRetries: number;
}

export function newTrafficLog(): TrafficLog {
  return { statuses: new Map(), failures: [], calls: [], clientRetries: 0 };
}

/** One shopper's cookies, as a browser keeps them: the latest value of each name. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const separator = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, separator), pair!.slice(separator + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface ShopperOptions {
  /** Where each request goes: a balancer's origin, or the next instance in turn. */
  origin: () => string;
  log: TrafficLog;
  /** Statuses that are not failures for this story (503 while the database is away). */
  tolerated?: (status: number, response: Response) => boolean;
  /** No request may take longer than this. */
  timeoutMs?: number;
}

export function createShopper({ origin, log, tolerated = () => false, timeoutMs = 15_000 }: ShopperOptions) {
  const jar = new CookieJar();
  const json = { "content-type": "application/json", accept: "application/json" };

  /**
   * A GET whose connection the balancer closed before any answer (a kept-alive connection it dropped as it sent the
   * request) is sent once more, as browsers do for an idempotent request; anything else unanswered is a failure.
   */
  async function call(what: string, input: string, init: RequestInit, expected: number[]): Promise<CallResult> {
    const result = await callOnce(what, input, init, expected, (init.method ?? "GET") === "GET");
    return result ?? (await callOnce(what, input, init, expected, false))!;
  }

  async function callOnce(
    what: string,
    input: string,
    init: RequestInit,
    expected: number[],
    mayRetry: boolean,
  ): Promise<CallResult | null> {
    const started = performance.now();
    const at = Date.now();
    try {
      const response = await fetch(`${origin()}${input}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      const milliseconds = performance.now() - started;
      jar.take(response);
      const status = String(response.status);
      log.statuses.set(status, (log.statuses.get(status) ?? 0) + 1);
      log.calls.push({ at, status, milliseconds, what, retryAfter: response.headers.get("retry-after") });
      const ok = expected.includes(response.status);
      if (!ok && !tolerated(response.status, response))
        log.failures.push(`${what}: HTTP ${response.status} ${text.slice(0, 200)}`);
      return { response, text, ok, unanswered: false, milliseconds };
    } catch (error) {
      const milliseconds = performance.now() - started;
      const closed =
        error instanceof Error &&
        error.cause instanceof Error &&
        /other side closed|ECONNRESET|socket hang up/.test(
          `${error.cause.message} ${(error.cause as { code?: string }).code}`,
        );
      if (mayRetry && closed) {
        log.clientRetries += 1;
        return null;
      }
      log.statuses.set("none", (log.statuses.get("none") ?? 0) + 1);
      log.calls.push({ at, status: "none", milliseconds, what, retryAfter: null });
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      log.failures.push(
        `${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}${cause} at ${new Date(at).toISOString()} after ${Math.round(milliseconds)} ms`,
      );
      return { text: "", ok: false, unanswered: true, milliseconds };
    }
  }

  return {
    call,
    page: (path: string) => call(`GET ${path}`, path, { headers: { accept: "text/html" } }, [200]),
    basket: async () => {
      const result = await call("GET /basket", "/basket", { headers: { accept: "application/json" } }, [200]);
      return result.ok
        ? (
            JSON.parse(result.text) as {
              basket: { items: { product: { id: string }; quantity: number }[]; subtotalCents: number };
            }
          ).basket
        : null;
    },
    add: (productId: string) =>
      call(
        "POST /basket/add",
        "/basket/add",
        { method: "POST", headers: json, body: JSON.stringify({ productId }) },
        [201],
      ),
    setQuantity: (productId: string, quantity: number) =>
      call(
        "POST /basket/quantity",
        "/basket/quantity",
        { method: "POST", headers: json, body: JSON.stringify({ productId, quantity }) },
        [200],
      ),
    remove: (productId: string) =>
      call(
        "POST /basket/remove",
        "/basket/remove",
        { method: "POST", headers: json, body: JSON.stringify({ productId }) },
        [200],
      ),
    /** "Create your account" or "Sign In" on /login: signed in when it redirects. */
    signIn: (intent: "register" | "sign-in", email: string, password: string) =>
      call(
        `POST /login (${intent})`,
        "/login",
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ intent, email, password }).toString(),
        },
        [302],
      ),
    signOut: () => call("POST /logout", "/logout", { method: "POST", headers: json, body: "{}" }, [200]),
    /**
     * The whole checkout of the basket as it is: delivery address, a payment intent for its total, the card confirmed
     * at the processor, the order recorded. Returns the intent's id once the processor said it succeeded (paid, whether
     * or not the shop then answered), else null.
     */
    async pay(
      publishableKey: string,
      options: { processor?: () => string; keepRecordingForMs?: number } = {},
    ): Promise<{ intentId: string | null; recorded: boolean }> {
      const basket = await call("GET /basket", "/basket", { headers: { accept: "application/json" } }, [200]);
      if (!basket.ok) return { intentId: null, recorded: false };
      const subtotal = (JSON.parse(basket.text) as { basket: { subtotalCents: number } }).basket.subtotalCents;
      const address = await call(
        "POST /checkout/address",
        "/checkout/address",
        { method: "POST", headers: json, body: JSON.stringify(TEST_DELIVERY_ADDRESS) },
        [200],
      );
      if (!address.ok) return { intentId: null, recorded: false };
      const created = await call(
        "POST /payments/create",
        `/payments/create?total=${subtotal}`,
        { method: "POST", headers: { accept: "application/json" } },
        [201],
      );
      if (!created.ok) return { intentId: null, recorded: false };
      const clientSecret = (JSON.parse(created.text) as { clientSecret: string }).clientSecret;
      const intentId = clientSecret.split("_secret_")[0]!;
      // The built-in processor mounted in the shop, unless it runs as its own process (PROCESSOR_URL).
      const processorBase = options.processor?.() ?? `${origin()}/_processor`;
      const confirmed = await confirmAtProcessor(processorBase, publishableKey, intentId, clientSecret, log);
      if (!confirmed) return { intentId: null, recorded: false };
      // Paid: the shopper's page records the order, and asks again after a "try again" (503) for as long as allowed.
      const deadline = performance.now() + (options.keepRecordingForMs ?? 0);
      for (;;) {
        const recorded = await call(
          "POST /orders/record",
          "/orders/record",
          { method: "POST", headers: json, body: JSON.stringify({ paymentIntentId: intentId }) },
          [201],
        );
        if (recorded.ok) return { intentId, recorded: true };
        // 503: the database is away; 502: the processor did not answer in time (a machine under load). Both say
        // "nothing was changed; please try again", and the page does.
        const tryAgain = recorded.unanswered || recorded.response?.status === 503 || recorded.response?.status === 502;
        if (!tryAgain || performance.now() > deadline) return { intentId, recorded: false };
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
  };
}

/** The card confirmed at the processor with the publishable key, as Stripe.js does from the payment page. */
async function confirmAtProcessor(
  processorBase: string,
  publishableKey: string,
  intentId: string,
  clientSecret: string,
  log: TrafficLog,
): Promise<boolean> {
  try {
    const response = await fetch(`${processorBase}/v1/payment_intents/${intentId}/confirm`, {
      method: "POST",
      headers: { authorization: `Bearer ${publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_secret: clientSecret, use_stripe_sdk: "true", ...TEST_CARD }).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (response.status !== 200) {
      log.failures.push(`confirm at the processor: HTTP ${response.status} ${text.slice(0, 200)}`);
      return false;
    }
    return (JSON.parse(text) as { status: string }).status === "succeeded";
  } catch (error) {
    log.failures.push(`confirm at the processor: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/**
 * The publishable key the payment page hands to Stripe.js, read as a new guest with the Echo in the basket (an empty
 * basket's /payment sends the shopper back to the basket).
 */
export async function publishableKeyOf(origin: string): Promise<string> {
  const added = await fetch(`${origin}/basket/add`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ productId: "23445930" }),
  });
  const cookie = (added.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const html = await (await fetch(`${origin}/payment`, { headers: { accept: "text/html", cookie } })).text();
  const key = /pk_test_[A-Za-z0-9]+/.exec(html)?.[0];
  if (!key) throw new Error("the payment page names no publishable key");
  return key;
}

/** Waits for `check` to hold, polling; fails naming `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
