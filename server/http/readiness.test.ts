import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { expect, it, onTestFinished, vi } from "vitest";
import type { Readiness } from "./readiness";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

const PRODUCT_ID = "12321341";

/**
 * A basket add whose body is held back: the request is in flight (its route has started) until `finish()` sends
 * the rest. `answer` settles with the status, headers and body the shop gave.
 */
function heldBasketAdd(port: number) {
  const body = JSON.stringify({ productId: PRODUCT_ID });
  let request!: ClientRequest;
  const answer = new Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }>(
    (resolve, reject) => {
      request = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/basket/add",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
          );
        },
      );
      request.on("error", reject);
    },
  );
  request.write(body.slice(0, 5));
  request.flushHeaders();
  return { answer, finish: () => request.end(body.slice(5)) };
}

/** Resolves once the shop is working on `count` requests: the held ones have reached it and been admitted. */
async function untilInFlight(shop: { readiness: Readiness }, count: number) {
  await vi.waitFor(() => expect(shop.readiness.inFlight).toBe(count), { timeout: 5_000, interval: 10 });
}

describeEachDatabase("readiness, draining and load shedding", (getDatabase) => {
  it("/readyz answers 200 when the database answers, /healthz likewise, neither is cached", async () => {
    const shop = await createTestShop(getDatabase());
    const ready = await shop.app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect((await shop.app.request("/healthz")).status).toBe(200);
  });

  it("on stop, /readyz turns 503 at once while pages and requests are still served, and a request in flight finishes", async () => {
    const shop = await createTestShop(getDatabase(), { shutdownDelayMs: 4_000 });
    const running = await shop.listen(0);
    const origin = `http://127.0.0.1:${running.port}`;
    const held = heldBasketAdd(running.port);
    await untilInFlight(shop, 1);

    const stopped = running.close();
    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    // Liveness is not readiness: the process is alive and still serving.
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const during = await fetch(`${origin}/basket`, { headers: { accept: "application/json" } });
    expect(during.status).toBe(200);
    // Keep-alive clients (a balancer's pooled connections) are told to move on.
    expect(during.headers.get("connection")).toBe("close");

    held.finish();
    const answer = await held.answer;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ basket: { count: 1 } });
    await stopped;
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
  });

  it("past the bound on requests in flight, the next is answered 503 with Retry-After at once, and the others complete", async () => {
    const shop = await createTestShop(getDatabase(), { maxRequestsInFlight: 2 });
    const running = await shop.listen(0);
    onTestFinished(() => running.close());
    const origin = `http://127.0.0.1:${running.port}`;
    const held = [heldBasketAdd(running.port), heldBasketAdd(running.port)];
    await untilInFlight(shop, 2);

    const started = performance.now();
    const shed = await fetch(`${origin}/basket/add`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ productId: PRODUCT_ID }),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(shed.status).toBe(503);
    expect(shed.headers.get("retry-after")).toBe("1");
    expect(await shed.json()).toMatchObject({
      error: { code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/try again/) },
    });
    // A load balancer's checks are never shed: they must tell "busy" from "down".
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);
    // Nor are the shop's own calls to its built-in processor: requests already admitted make them, and would fail with them.
    const intentAddress = `${origin}/_processor/v1/payment_intents/pi_unknown`;
    const processorCall = await fetch(intentAddress, {
      headers: { authorization: `Bearer ${shop.processorKeys!.secretKey}` },
    });
    expect(processorCall.status).toBe(404);
    // A browser's call to the processor (the publishable key), or one with a wrong secret, is shed like any other.
    for (const key of [shop.processorKeys!.publishableKey, `${shop.processorKeys!.secretKey}x`]) {
      expect((await fetch(intentAddress, { headers: { authorization: `Bearer ${key}` } })).status).toBe(503);
    }

    for (const request of held) request.finish();
    expect((await Promise.all(held.map((request) => request.answer))).map((answer) => answer.status)).toEqual([
      201, 201,
    ]);
    const after = await fetch(`${origin}/basket`, { headers: { accept: "application/json" } });
    expect(after.status).toBe(200);

    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(/^storefront_http_requests_shed_total 3$/m);
  });
});
