// The guard against cross-site request forgery: a state-changing request another site sent (Sec-Fetch-Site, Origin) is
// refused.

import type { Context, MiddlewareHandler } from "hono";
import { AppError } from "#shared/errors";
import { requestScheme, type RequestSchemeOptions } from "./request-scheme";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard for every state-changing request, forms and JSON alike. Browsers send
 * Sec-Fetch-Site and Origin on such requests; either one saying another site sent it is refused. An Origin must be
 * this server's whole origin (scheme, host and port): `https://shop` posting to `http://shop` is another origin.
 * A request with neither header (curl, a server) carries no victim's cookie a browser attached, so it is let through.
 * (hono/csrf checks only form-encoded bodies; JSON posts need the same guard.)
 * https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Sec-Fetch-Site
 */
export function sameOriginOnly(scheme: RequestSchemeOptions = { trustedProxyHops: 0 }): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const fetchSite = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const isCrossSite = fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
    if (isCrossSite || (origin !== undefined && !isOwnOrigin(origin, c, scheme))) {
      throw new AppError("FORBIDDEN", "This request came from another site and was refused.");
    }
    return next();
  };
}

/**
 * Whether an Origin header names this server as the browser reached it: the Host it asked for, by the scheme it
 * used. Behind a reverse proxy that ends TLS, the server itself is reached over http; the proxy's
 * X-Forwarded-Proto (believed only when the operator trusts the proxy) or PUBLIC_URL says what the browser used.
 */
function isOwnOrigin(origin: string, c: Context, scheme: RequestSchemeOptions): boolean {
  const host = c.req.header("host");
  if (host === undefined) return false;
  const own = URL.parse(`${requestScheme(c, scheme)}://${host}`);
  return own !== null && URL.parse(origin)?.origin === own.origin;
}
