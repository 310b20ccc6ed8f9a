import { expect, it, onTestFinished } from "vitest";
import { createTestShop } from "../testing/test-app";
import { describeEachDatabase } from "../testing/test-database";

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
    expect(text).toMatch(/^storefront_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    expect(text).toMatch(/^storefront_http_request_duration_seconds_count\{method="GET",route="\/basket",status="200"\} 1$/m);
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
    shop.services.metrics.registerGauge({ name: "storefront_test_backlog", help: "A backlog.", collect: () => backlog });
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
    const refused = await fetch(`http://127.0.0.1:${running.port}/metrics`, { headers: { accept: "application/json" } });
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toMatch(/storefront_/);

    const loopback = await createTestShop(getDatabase());
    const open = await loopback.listen(0);
    onTestFinished(() => open.close());
    // A balancer on the same machine connects from loopback: what it forwards is still the public's request.
    const proxied = await fetch(`http://127.0.0.1:${open.port}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(404);
    expect((await loopback.app.request("/metrics")).status).toBe(404);
  });
});
