import { Hono, type MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { routePath } from "hono/route";
import { metricsAccess, type Metrics } from "../metrics/metrics";
import type { AppEnv } from "./app-env";

/**
 * Counts and times every request by the route that answered it. Pages (React Router behind one catch-all) are named
 * by their first path segment ("/products/*"), so that the number of series stays that of the shop's routes; an
 * address nothing answered is "unmatched".
 */
export function observeRequests(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    let route = routePath(c);
    if (route === "*" || route === "/*") route = c.res.status === 404 ? "unmatched" : pageRoute(c.req.path);
    metrics.observeRequest(c.req.method, route, c.res.status, (performance.now() - started) / 1000);
  };
}

function pageRoute(path: string): string {
  const [first = "", ...rest] = path.slice(1).split("/");
  return `/${first}${rest.length > 0 ? "/*" : ""}`;
}

/** GET /metrics for Prometheus, only to METRICS_ALLOW (see metricsAccess); anyone else finds nothing there. */
export function metricsRoutes(metrics: Metrics, allow: readonly string[]) {
  const isAllowed = metricsAccess(allow);
  return new Hono<AppEnv>().get("/metrics", async (c) => {
    let remoteAddress: string | undefined;
    try {
      remoteAddress = getConnInfo(c).remote.address;
    } catch {
      // Not served over a socket (an in-process test's app.request): no address, so not allowed.
    }
    if (!isAllowed(remoteAddress, c.req.raw.headers)) return c.notFound();
    return c.body(await metrics.render(), 200, { "Content-Type": metrics.contentType, "Cache-Control": "no-store" });
  });
}
