// The Hono app: the middleware in order (request log, security headers, compression, static files, health, limits,
// same-origin, shopper) before the JSON-or-form routes and React Router.

import { readdirSync } from "node:fs";
import path from "node:path";
import { Hono, type Context } from "hono";
import { serveStatic } from "@hono/node-server/serve-static";
import { RouterContextProvider, type RequestHandler } from "react-router";
import { AppError, type ErrorBody } from "#shared/errors";
import { isDatabaseUnavailable } from "#server/db/database-errors";
import { asArrivedNow, asFirstInLine } from "#server/db/oldest-first-queue";
import { BUILT_IN_PROCESSOR_PATH } from "#server/payments/payment-provider";
import type { Services } from "#server/services";
import { accountRoutes } from "./account-routes";
import type { AppEnv } from "./app-env";
import { jsonResponse } from "./response-bytes";
import { limitBody } from "./body-limit";
import { consoleRequestLimits, isLargeConsoleForm } from "./admin-guard";
import { requireTwoStepForConsole } from "./two-step-gate";
import { allowedHostsOnly } from "./allowed-hosts";
import { basketRoutes } from "./basket-routes";
import { clientIp } from "./client-ip";
import { compressResponses } from "./compress";
import { guestPageCache } from "./guest-page-cache";
import { healthRoutes } from "./health-routes";
import { metricsRoutes, observeRequests } from "./metrics-routes";
import { paymentRoutes } from "./payment-routes";
import { pictureRoutes } from "./picture-routes";
import { personalPagesUncached } from "./personal-pages";
import { limitRefusedMethods } from "./refused-methods";
import { boundedWork, createReadiness, DEFAULT_MAX_REQUESTS_IN_FLIGHT, type Readiness } from "./readiness";
import { isHttpsRequest, requestScheme } from "./request-scheme";
import { requestContext } from "./request-context";
import { requestLog } from "./request-log";
import { sameOriginOnly } from "./same-origin";
import { securityHeaders } from "./security-headers";
import { shopperMiddleware } from "./shopper";

const DATABASE_UNAVAILABLE =
  "The shop can't reach its database right now. Nothing was changed; please try again in a moment.";

/** No request body the shop accepts comes near this; anything larger is refused before it is read. */
export const MAX_BODY_BYTES = 32 * 1024;

export interface AppOptions {
  services: Services;
  /** The React Router handler for pages; absent in tests that exercise only the JSON routes. */
  handlePageRequest?: RequestHandler;
  /** The same pages without the operator console (createPageHandlers in page-handlers.ts), for everybody but operators. */
  handlePublicPageRequest?: RequestHandler;
  /** Where the production client build lives; in development Vite serves assets itself. */
  clientBuildDir?: string;
  /** The shop's public origin (PUBLIC_URL): its scheme decides Secure cookies and HSTS for every request. */
  publicUrl?: URL;
  /** Proxies the operator runs in front of the shop: the client address (and scheme) is then read from X-Forwarded-*. */
  trustedProxyHops?: number;
  /**
   * The built-in test-mode card processor, mounted at /_processor when no Stripe keys are set, and how it tells the
   * shop's own calls (with its secret key) from a browser's.
   */
  processor?: { app: Hono; isSecretKeyCall(authorization: string | undefined): boolean };
  /** Running many instances: draining state for /readyz, the bound on requests in flight, who may read /metrics. */
  readiness?: Readiness;
  maxRequestsInFlight?: number;
  metricsAllow?: readonly string[];
  /** Without publicUrl: host names answered besides IP literals and localhost (ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
}

/**
 * The whole HTTP surface, in load order: cross-cutting middleware, static assets, health, the guards for anything
 * that reads a session or changes state, the built-in processor, JSON-or-form routes, then React Router for every
 * page. One error handler at the end hides 5xx details from callers and turns a database outage into a 503.
 */
export function createApp({
  services,
  handlePageRequest,
  handlePublicPageRequest,
  clientBuildDir,
  publicUrl,
  trustedProxyHops = 0,
  processor,
  ...scaling
}: AppOptions) {
  const app = new Hono<AppEnv>();
  const readiness = scaling.readiness ?? createReadiness();
  const isHttps = (c: Context) => isHttpsRequest(c, { publicUrl, trustedProxyHops });

  // The shop's own calls to its built-in processor (made with the secret key) come from requests already under way
  // and admitted: they go first for the database's connections and are never shed, or those requests would wait on
  // them. A browser's calls (the card's confirmation, with the publishable key) queue and are shed like any request.
  const isOwnProcessorCall = (c: Context) =>
    processor !== undefined &&
    (c.req.path === BUILT_IN_PROCESSOR_PATH || c.req.path.startsWith(`${BUILT_IN_PROCESSOR_PATH}/`)) &&
    processor.isSecretKeyCall(c.req.header("authorization"));
  app.use((c, next) => {
    c.set("services", services);
    return isOwnProcessorCall(c) ? asFirstInLine(next) : asArrivedNow(next);
  });
  app.use(observeRequests(services.metrics));
  app.use(requestLog(services.logger));
  app.use(guestPageCache({ catalogueVersion: () => services.catalogue.currentVersion(), logger: services.logger }));
  app.use(
    securityHeaders({
      isHttps,
      allowStripe: services.provider.mode === "stripe",
      // A processor run as its own process is called by the payment page on its own origin.
      processorOrigin: URL.canParse(services.provider.browserProcessorUrl)
        ? new URL(services.provider.browserProcessorUrl).origin
        : undefined,
    }),
  );
  app.use(personalPagesUncached());
  app.use(compressResponses());

  if (clientBuildDir) {
    // Vite names assets by content hash, so they can be cached forever: the scripts, and the shop's own pictures
    // (shared/shop-pictures.ts).
    app.use(
      "/assets/*",
      serveStatic({
        root: clientBuildDir,
        precompressed: true,
        onFound: (_path, c) => setCache(c, "public, max-age=31536000, immutable"),
      }),
    );
    // The other public files (the favicon) are listed once: a page or API request then costs no file-system lookups
    // on its way to its route.
    const publicFiles = listPublicFiles(clientBuildDir);
    const servePublicFile = serveStatic({
      root: clientBuildDir,
      precompressed: true,
      onFound: (_path, c) => setCache(c, "public, max-age=3600"),
    });
    app.use("*", (c, next) => (publicFiles.has(c.req.path) ? servePublicFile(c, next) : next()));
  }

  app.route("/", healthRoutes(readiness));
  app.route("/", metricsRoutes(services.metrics, scaling.metricsAllow ?? ["127.0.0.1", "::1"]));
  // Past the balancer's checks and Prometheus: without PUBLIC_URL, links name the request's Host, so only Hosts that
  // cannot be an attacker's name are answered.
  if (!publicUrl) app.use(allowedHostsOnly(scaling.allowedHosts ?? []));
  const shedPastBound = boundedWork(
    readiness,
    scaling.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT,
    services.metrics.countShed,
  );
  app.use((c, next) => (isOwnProcessorCall(c) ? next() : shedPastBound(c, next)));
  app.route("/", pictureRoutes);

  // Everything below may read the session or change state. The console's picture and CSV forms get theirs from adminGuard.
  const shopBodyLimit = limitBody({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError("PAYLOAD_TOO_LARGE", "The request is too large.");
    },
  });
  app.use((c, next) => (isLargeConsoleForm(c.req.method, c.req.path) ? next() : shopBodyLimit(c, next)));
  app.use(sameOriginOnly({ publicUrl, trustedProxyHops }));
  if (processor) app.route(BUILT_IN_PROCESSOR_PATH, processor.app);
  app.use(clientIp({ trustedProxyHops }));
  app.use(limitRefusedMethods());
  app.use(shopperMiddleware(services.sessions, { isHttps }));
  app.use(consoleRequestLimits({ maxBodyBytes: MAX_BODY_BYTES }));
  app.use(requireTwoStepForConsole(services.twoStep));
  app.route("/", basketRoutes);
  app.route("/", accountRoutes);
  app.route("/", paymentRoutes);

  if (handlePageRequest) {
    app.all("*", async (c) => {
      const context = new RouterContextProvider();
      const outage = { isDatabaseUnavailable: false };
      context.set(requestContext, {
        services,
        requestId: c.get("requestId"),
        // Made when the document is rendered (entry.server.tsx reads it): a .data request or an action's redirect
        // runs no inline code and gets none.
        get cspNonce() {
          return c.get("cspNonce")();
        },
        shopper: c.get("shopper"),
        clientIp: c.get("clientIp"),
        publicOrigin:
          publicUrl?.origin ??
          `${requestScheme(c, { publicUrl, trustedProxyHops })}://${c.req.header("host") ?? new URL(c.req.url).host}`,
        isPublicUrlSet: publicUrl !== undefined,
        outage,
        isDatabaseUnavailable,
      });
      const isOperator = c.get("shopper").user?.isOperator === true;
      const response = await (isOperator ? handlePageRequest : (handlePublicPageRequest ?? handlePageRequest))(
        c.req.raw,
        context,
      );
      if (!outage.isDatabaseUnavailable || response.status < 500) return response;
      // The page already says "please try again"; the status and Retry-After say it to machines.
      const headers = new Headers(response.headers);
      headers.set("Retry-After", "5");
      return new Response(response.body, { status: 503, headers });
    });
  }

  app.notFound((c) => errorResponse(c, new AppError("NOT_FOUND", "There is nothing at this address.")));
  app.onError((error, c) => {
    if (error instanceof AppError) return errorResponse(c, error);
    if (isDatabaseUnavailable(error)) {
      services.logger.warn({ err: error, requestId: c.get("requestId") }, "database unavailable");
      return errorResponse(c, new AppError("SERVICE_UNAVAILABLE", DATABASE_UNAVAILABLE, { retryAfterSeconds: 5 }));
    }
    services.logger.error({ err: error, requestId: c.get("requestId") }, "unhandled error");
    return errorResponse(c, new AppError("INTERNAL", "Something went wrong on our side. Please try again."));
  });

  return app;
}

/** The URL paths of the files in the client build outside /assets (their precompressed twins are found by serveStatic). */
function listPublicFiles(clientBuildDir: string): Set<string> {
  const files = readdirSync(clientBuildDir, { recursive: true, withFileTypes: true });
  return new Set(
    files
      .filter((entry) => entry.isFile() && !/\.(br|gz)$/.test(entry.name))
      .map(
        (entry) =>
          `/${path.relative(clientBuildDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/")}`,
      )
      .filter((urlPath) => !urlPath.startsWith("/assets/")),
  );
}

function setCache(c: Context, value: string) {
  c.header("Cache-Control", value);
}

/**
 * The error answer: JSON for API callers; for a browser loading a page (Accept: text/html, a GET), a small page with
 * the same sentence, since the error may have come before React could render anything.
 */
export function errorResponse(c: Context<AppEnv>, error: AppError) {
  if (error.retryAfterSeconds) c.header("Retry-After", String(error.retryAfterSeconds));
  if (c.req.method === "GET" && c.req.header("accept")?.includes("text/html")) {
    return c.html(plainErrorPage(error.message), error.status as 400);
  }
  const body: ErrorBody = {
    error: { code: error.code, message: error.message, requestId: c.get("requestId"), details: error.details },
  };
  return jsonResponse(c, body, error.status as 400);
}

function plainErrorPage(message: string): string {
  const escaped = message.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Storefront</title></head><body><main><h1>Storefront</h1><p>${escaped}</p><p><a href="/">Try again</a></p></main></body></html>`;
}
