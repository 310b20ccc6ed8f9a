import { get } from "node:http";
import { expect, it, onTestFinished } from "vitest";
import { pageRouteLabel } from "./metrics-routes";
import { createPageShop } from "#server/testing/page-shop";
import { createTestShop } from "#server/testing/test-app";
import { describeEachDatabase } from "#server/testing/test-database";

describeEachDatabase("/metrics", (getDatabase) => {
  it("gives loopback Prometheus text: requests by route and status, durations, queries, webhooks pending, process figures", async () => {
    const shop = await createTestShop(getDatabase());
    const running = await shop.listen(0);
    onTestFinished(() => running.close());
    const origin = `http://127.0.0.1:${running.port}`;
    await fetch(`${origin}/healthz`);
    await fetch(`${origin}/basket`, { headers: { accept: "application/json" } });
    await fetch(`${origin}/no-such-page`, { headers: { accept: "application/json" } });

    const response = await fetch(`${origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^storefront_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
    expect(text).toMatch(/^storefront_http_requests_total\{method="GET",route="\/basket",status="200"\} 1$/m);
    // An address nothing answers is one series, whatever was asked for.
    expect(text).toMatch(/^storefront_http_requests_total\{method="GET",route="other",status="404"\} 1$/m);
    expect(text).toMatch(
      /^storefront_http_request_duration_seconds_count\{method="GET",route="\/basket",status="200"\} 1$/m,
    );
    expect(text).toMatch(/^storefront_db_query_duration_seconds_count\{outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^storefront_webhook_deliveries_pending 0$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^storefront_db_pool_connections [1-9]\d*$/m);
    expect(text).toMatch(/^storefront_db_pool_waiting 0$/m);
  });

  it("lets other modules add gauges read at each scrape", async () => {
    const shop = await createTestShop(getDatabase());
    let backlog = 3;
    shop.services.metrics.registerGauge({
      name: "storefront_test_backlog",
      help: "A backlog.",
      collect: () => backlog,
    });
    const running = await shop.listen(0);
    onTestFinished(() => running.close());
    const scrape = async () => (await fetch(`http://127.0.0.1:${running.port}/metrics`)).text();
    expect(await scrape()).toMatch(/^storefront_test_backlog 3$/m);
    backlog = 5;
    expect(await scrape()).toMatch(/^storefront_test_backlog 5$/m);
  });

  it("is not found from an address METRICS_ALLOW leaves out, nor through a proxy, nor in-process without a socket", async () => {
    const elsewhere = await createTestShop(getDatabase(), { metricsAllow: ["10.0.0.0/8"] });
    const running = await elsewhere.listen(0);
    onTestFinished(() => running.close());
    const refused = await fetch(`http://127.0.0.1:${running.port}/metrics`, {
      headers: { accept: "application/json" },
    });
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toMatch(/storefront_/);

    const loopback = await createTestShop(getDatabase());
    const open = await loopback.listen(0);
    onTestFinished(() => open.close());
    // A balancer on the same machine connects from loopback: what it forwards is still the public's request.
    for (const header of [
      { "x-forwarded-for": "203.0.113.9" } as Record<string, string>,
      { "x-real-ip": "203.0.113.9" },
      { forwarded: "for=203.0.113.9" },
      { via: "1.1 balancer" },
      { "cf-connecting-ip": "203.0.113.9" },
    ]) {
      const proxied = await fetch(`http://127.0.0.1:${open.port}/metrics`, { headers: header });
      expect(proxied.status, Object.keys(header)[0]).toBe(404);
    }
    expect((await loopback.app.request("/metrics")).status).toBe(404);
  });

  it("keeps its size whatever is asked for: 5,000 requests to unique paths with odd methods leave /metrics within 10 % of its size", async () => {
    const shop = await createPageShop(getDatabase());
    onTestFinished(() => shop.close());
    const running = await shop.listen(0);
    onTestFinished(() => running.close());
    // A connection of its own for each scrape: minutes pass between them, longer than the server keeps one idle.
    const scrape = () =>
      new Promise<string>((resolve, reject) => {
        get({ host: "127.0.0.1", port: running.port, path: "/metrics", agent: false }, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve(body));
        }).on("error", reject);
      });
    // Every page of app/routes.ts has a label of its own (but the not-found page's catch-all).
    for (const route of shop.routeTable.filter(({ path }) => path !== "/*"))
      expect(pageRouteLabel(route.path), route.path).not.toBe("other");
    const METHODS = [
      "PROPFIND",
      "OPTIONS",
      "PUT",
      "DELETE",
      "PATCH",
      "MKCOL",
      "LOCK",
      "SEARCH",
      "REPORT",
      "BREW",
      "X-ODD",
    ];
    let sent = 0;
    const sendUnique = async (count: number) => {
      for (let index = 0; index < count; index += 1, sent += 1) {
        const method = METHODS[sent % METHODS.length]!;
        const path = sent % 2 === 0 ? `/probe-${sent}` : `/products/probe-${sent}/deeper-${sent}`;
        const response = await shop.app.request(`http://shop.test${path}`, {
          method,
          headers: { host: "shop.test", accept: "text/html" },
        });
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
        await response.arrayBuffer();
      }
    };
    // Every kind of answer once (the 405s, the 404s, the refusals past the 405 limit), then the size is taken.
    await sendUnique(300);
    const before = await scrape();
    await sendUnique(5_000);
    const after = await scrape();
    expect(after.length / before.length, "size after / size before").toBeGreaterThan(0.9);
    expect(after.length / before.length, "size after / size before").toBeLessThan(1.1);
    expect(after).not.toMatch(/probe-/);
    expect(after).not.toMatch(/method="(BREW|X-ODD|MKCOL)"/);
  }, 240_000);
});
