import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { AppError } from "#shared/errors";
import { PROCESSOR_ERROR_SENTENCES } from "./processor-errors";
import { createPaymentProvider } from "./payment-provider";

// Nothing listens on port 9 (discard) here: an answer can only have come from the handler, in process.
const NOWHERE = new URL("http://127.0.0.1:9/");

const KEYS = { secretKey: "sk_test_inprocess", publishableKey: "pk_test_inprocess", webhookSecret: "whsec_inprocess" };

/** V8's own collector, asked for by the test: a request no one holds must still be given up on. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

function intentJson(id: string) {
  return {
    id,
    object: "payment_intent",
    status: "succeeded",
    amount: 1196,
    currency: "usd",
    client_secret: `${id}_secret_abc`,
    created: 1_764_460_800,
    metadata: { storefront_checkout: "1" },
    payment_method: { id: "pm_1", object: "payment_method", card: { brand: "visa", last4: "4242" } },
    shipping: null,
  };
}

describe("the built-in processor mounted in this server, reached in process", () => {
  it("hands the SDK's request to the server's own handler, at the processor's path, with its key", async () => {
    const seen: { method: string; path: string; search: string; authorization: string | null }[] = [];
    const provider = createPaymentProvider({
      mode: "built-in",
      ...KEYS,
      selfOrigin: () => NOWHERE,
      serveInProcess: (request) => {
        const url = new URL(request.url);
        seen.push({
          method: request.method,
          path: url.pathname,
          search: url.search,
          authorization: request.headers.get("authorization"),
        });
        return Response.json(intentJson("pi_inprocess"));
      },
    });

    const intent = await provider.retrieveIntent("pi_inprocess");

    expect(intent).toMatchObject({
      id: "pi_inprocess",
      status: "succeeded",
      amountCents: 1196,
      card: { brand: "visa", last4: "4242" },
    });
    expect(seen).toEqual([
      {
        method: "GET",
        path: "/_processor/v1/payment_intents/pi_inprocess",
        search: "?expand[0]=payment_method",
        authorization: `Bearer ${KEYS.secretKey}`,
      },
    ]);
  });

  it("gives up on a handler that never answers after the SDK's timeout, as on a socket", async () => {
    let calls = 0;
    const provider = createPaymentProvider({
      mode: "built-in",
      ...KEYS,
      timeoutMs: 100,
      selfOrigin: () => NOWHERE,
      serveInProcess: () => {
        calls += 1;
        return new Promise<Response>(() => {});
      },
    });

    const started = performance.now();
    const failure = await provider.retrieveIntent("pi_silent").catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).message).toBe(PROCESSOR_ERROR_SENTENCES.unreachable);
    // The first try and the SDK's two retries, each given up after its 100 ms.
    expect(calls).toBe(3);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("gives up on time even when the garbage is collected while the handler says nothing", async () => {
    const provider = createPaymentProvider({
      mode: "built-in",
      ...KEYS,
      timeoutMs: 100,
      selfOrigin: () => NOWHERE,
      serveInProcess: () => new Promise<Response>(() => {}),
    });
    let settled = false;
    const failure = provider.retrieveIntent("pi_silent").catch((error: unknown) => error);
    void failure.finally(() => (settled = true));
    // A busy server collects garbage while it waits; nothing else holds a request whose handler never answers.
    for (let waited = 0; !settled && waited < 5_000; waited += 25) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      collectGarbage();
    }
    expect(settled).toBe(true);
    expect(((await failure) as AppError).message).toBe(PROCESSOR_ERROR_SENTENCES.unreachable);
  });
});
