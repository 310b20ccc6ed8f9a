// The Prometheus registry: request, query and pool figures, gauges other modules register, and who may read /metrics.

import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { Logger } from "#server/logger";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: a page takes milliseconds; the top buckets catch a database that stalls. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GaugeDefinition {
  /** A Prometheus metric name, e.g. storefront_outbox_backlog. */
  name: string;
  help: string;
  /** Read at each scrape; a failure (the database away) leaves the gauge out of that scrape, never the others. */
  collect(): number | Promise<number>;
}

/**
 * This process's metrics in Prometheus's text format (GET /metrics): requests by route and status, their
 * durations, database queries and the pool, requests shed, plus Node's process metrics. Each shop instance has its
 * own registry (tests run several in one process). Other modules add gauges read at scrape time with `registerGauge`.
 */
export function createMetrics(logger: Logger) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "storefront_http_requests_total",
    help: "HTTP requests answered, by route and status.",
    labelNames,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: "storefront_http_request_duration_seconds",
    help: "Time from a request's arrival to its response, by route and status.",
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const queryDuration = new Histogram({
    name: "storefront_db_query_duration_seconds",
    help: "Database statements, from sending to the last row (the wait for a pooled connection not included).",
    labelNames: ["outcome"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const shed = new Counter({
    name: "storefront_http_requests_shed_total",
    help: "Requests answered 503 at once because the process had too many in flight.",
    registers: [registry],
  });

  function registerGauge({ name, help, collect }: GaugeDefinition) {
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        try {
          this.set(await collect());
        } catch (error) {
          logger.warn(
            { err: error, gauge: name },
            "metrics: a gauge could not be read, so it is left out of this scrape",
          );
          this.reset();
        }
      },
    });
  }

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observeRequest(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      requestDuration.observe(labels, seconds);
    },
    observeQuery(milliseconds: number, isError: boolean) {
      queryDuration.observe({ outcome: isError ? "error" : "ok" }, milliseconds / 1000);
    },
    countShed: () => shed.inc(),
    registerGauge,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Headers a reverse proxy or CDN adds to what it forwards (docs/configuration.md, "Metrics"): a request carrying any of them came
 * through one, whatever its connection's address.
 */
export const PROXY_HEADERS = [
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "x-client-ip",
  "x-cluster-client-ip",
  "true-client-ip",
  "cf-connecting-ip",
  "fastly-client-ip",
  "via",
] as const;

/**
 * Who may read /metrics: METRICS_ALLOW's addresses and networks, by the connection's own address. A request that
 * came through a proxy (it carries one of PROXY_HEADERS) is refused whatever the connection's address, so a
 * load balancer on loopback never makes /metrics public.
 */
export function metricsAccess(allow: readonly string[]) {
  const allowed = new BlockList();
  for (const entry of allow) {
    const [address = "", prefix] = entry.split("/");
    const type = isIPv6(address) ? "ipv6" : "ipv4";
    if (!isIPv4(address) && !isIPv6(address)) continue;
    if (prefix === undefined) allowed.addAddress(address, type);
    else allowed.addSubnet(address, Number(prefix), type);
  }
  return (remoteAddress: string | undefined, headers: Headers): boolean => {
    if (!remoteAddress || PROXY_HEADERS.some((name) => headers.has(name))) return false;
    // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
    const address =
      remoteAddress.startsWith("::ffff:") && isIPv4(remoteAddress.slice(7)) ? remoteAddress.slice(7) : remoteAddress;
    return allowed.check(address, isIPv6(address) ? "ipv6" : "ipv4");
  };
}
