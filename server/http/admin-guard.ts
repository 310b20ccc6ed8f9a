import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../../shared/errors";
import type { AppEnv } from "./app";

/**
 * /admin and everything under it, as React Router would match it: any case, percent-encoded or not, repeated
 * slashes, and the data requests of its pages ("/admin.data", "/admin/products.data").
 */
export function isAdminPath(pathname: string): boolean {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    // A malformed escape is matched as it is.
  }
  return /^\/+admin(?:[/.]|$)/i.test(decoded);
}

/** Where a non-operator's /admin request is sent instead: an address no route claims, so the shop's 404 page answers. */
const HIDDEN_PREFIX = "/__not-found";

/** The console's form with a picture: the only request bodies above the shop's 32 KB limit (a 10 MB picture, its fields). */
export const PICTURE_FORM_MAX_BYTES = 10 * 1024 * 1024 + 64 * 1024;
const PICTURE_FORM_PATH = /^\/admin\/products\/(?:new|[^/]+)\/?$/;
export const isPictureForm = (method: string, path: string) => method === "POST" && PICTURE_FORM_PATH.test(path);

/**
 * The console's guard, before React Router sees the request: to anybody who is not an operator, every /admin page,
 * action and data request is the shop's own 404 page, and route discovery never reveals the console's routes (their
 * paths are dropped from /__manifest requests). Operators' console pages are never cached. The picture form alone
 * may carry a large body, and only from an operator; everyone else's body is held to the shop's limit.
 */
export function adminGuard({ maxBodyBytes }: { maxBodyBytes: number }): MiddlewareHandler<AppEnv> {
  const tooLarge = () => {
    throw new AppError("PAYLOAD_TOO_LARGE", "The request is too large.");
  };
  const pictureFormLimit = bodyLimit({ maxSize: PICTURE_FORM_MAX_BYTES, onError: tooLarge });
  const shopLimit = bodyLimit({ maxSize: maxBodyBytes, onError: tooLarge });
  return async (c, next) => {
    const isOperator = c.get("shopper").user?.isOperator === true;
    const url = new URL(c.req.url);
    if (url.pathname === "/__manifest" && !isOperator && url.searchParams.has("paths")) {
      const paths = (url.searchParams.get("paths") ?? "").split(",").filter((path) => !isAdminPath(path.startsWith("/") ? path : `/${path}`));
      url.searchParams.set("paths", paths.join(","));
      c.req.raw = new Request(url, { method: c.req.method, headers: c.req.raw.headers, signal: c.req.raw.signal });
      return next();
    }
    if (!isAdminPath(url.pathname)) return next();
    if (!isOperator) {
      // The body is never read: the 404 page's action ignores it.
      url.pathname = `${HIDDEN_PREFIX}${url.pathname}`;
      c.req.raw = new Request(url, { method: c.req.method, headers: c.req.raw.headers, signal: c.req.raw.signal });
      return shopLimit(c, next);
    }
    await (isPictureForm(c.req.method, url.pathname) ? pictureFormLimit : shopLimit)(c, next);
    c.res.headers.set("Cache-Control", "private, no-store");
  };
}
