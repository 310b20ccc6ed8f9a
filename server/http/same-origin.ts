import type { MiddlewareHandler } from "hono";
import { AppError } from "../../shared/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cross-site request forgery guard for every state-changing request, forms and JSON alike. Browsers send
 * Sec-Fetch-Site and Origin on such requests; either one saying another site sent it is refused. A request with
 * neither (curl, a server) carries no victim's cookie a browser attached, so it is let through.
 * https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Sec-Fetch-Site
 */
export function sameOriginOnly(): MiddlewareHandler {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const fetchSite = c.req.header("sec-fetch-site");
    const origin = c.req.header("origin");
    const host = c.req.header("host");
    const isCrossSite = fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
    if (isCrossSite || (origin !== undefined && !isSameHost(origin, host))) {
      throw new AppError("FORBIDDEN", "This request came from another site and was refused.");
    }
    return next();
  };
}

function isSameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}
