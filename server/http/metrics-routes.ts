// GET /metrics for Prometheus (METRICS_ALLOW only), and the request figures labelled by route and status with a bounded
// set of labels.

import { Hono, type MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { metricsAccess, type Metrics } from "#server/metrics/metrics";
import type { AppEnv } from "./app-env";
import { socketPeerAddress } from "./client-ip";

/**
 * The first path segments of the shop's pages (app/routes.ts; metrics-routes.test.ts holds the two lists together).
 * A page is labelled by its segment ("/products/*"); anything else is "other", so the number of series is that of the
 * shop's routes whatever addresses are asked for.
 */
export const PAGE_SECTIONS: ReadonlySet<string> = new Set([
  "",
  "checkout",
  "payment",
  "orders",
  "products",
  "departments",
  "search",
  "account",
  "conditions",
  "privacy",
  "returns",
  "basket",
  "login",
  "forgot-password",
  "reset-password",
  "verify-email",
  "staff-invitation",
  "unsubscribe",
  "write-a-review",
  "stock-alerts",
  "gift-cards",
  "admin",
  "robots.txt",
  "sitemap.xml",
  "favicon.ico",
]);

/** Methods labelled by name; any other (PROPFIND, a made-up one) is "other". */
const LABELLED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Counts and times every request by the route that answered it. Hono's routes are labelled by their pattern; pages
 * (React Router behind one catch-all) by their first path segment when it is one of the shop's; an address nothing
 * answered, or one outside the shop's pages, is "other", and so is a method the shop does not label.
 */
export function observeRequests(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    metrics.observeRequest(
      methodLabel(c.req.method),
      routeLabel(routePath(c), c.req.path, c.res.status),
      c.res.status,
      (performance.now() - started) / 1000,
    );
  };
}

export function methodLabel(method: string): string {
  return LABELLED_METHODS.has(method) ? method : "other";
}

/** The label of a request's route: Hono's pattern, a page's section, or "other". */
export function routeLabel(route: string, path: string, status: number): string {
  if (route !== "*" && route !== "/*") return route;
  if (status === 404) return "other";
  return pageRouteLabel(path);
}

/** A page's label by its first segment ("/products/*"); "other" for a segment that is none of the shop's pages. */
export function pageRouteLabel(path: string): string {
  const [first = "", ...rest] = path.slice(1).split("/");
  if (!PAGE_SECTIONS.has(first)) return "other";
  return `/${first}${rest.length > 0 ? "/*" : ""}`;
}

/** GET /metrics for Prometheus, only to METRICS_ALLOW (see metricsAccess); anyone else finds nothing there. */
export function metricsRoutes(metrics: Metrics, allow: readonly string[]) {
  const isAllowed = metricsAccess(allow);
  return new Hono<AppEnv>().get("/metrics", async (c) => {
    // Not served over a socket (an in-process test's app.request): no address, so not allowed.
    if (!isAllowed(socketPeerAddress(c), c.req.raw.headers)) return c.notFound();
    return c.body(await metrics.render(), 200, { "Content-Type": metrics.contentType, "Cache-Control": "no-store" });
  });
}
