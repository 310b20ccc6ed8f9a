// The security headers every response carries: a Content-Security-Policy of this origin only (with a nonce or hashes),
// HSTS over HTTPS, and the rest of Hono's secure headers.

import type { Context, MiddlewareHandler } from "hono";
import { NONCE, secureHeaders, type SecureHeadersVariables } from "hono/secure-headers";
import { PICTURE_PATH_PREFIX } from "#server/pictures/picture-store";

/**
 * Headers every response carries, through Hono's secure-headers middleware. The Content-Security-Policy allows this
 * origin only (in the default mode the shop loads nothing from any other host; in Stripe mode, Stripe's hosts as
 * Stripe documents). React Router's inline hydration scripts and the inlined stylesheet run by a per-response nonce
 * (the middleware's NONCE), never by 'unsafe-inline'; it is handed on in `cspNonce` for the page renderer. A response
 * that carries its own policy (an e-mail's HTML as sent, shown in the console's frame) keeps it: two policies would
 * both apply, and the shop's would strip the e-mail of its styles. The console's pages may frame the shop's own
 * documents (frame-src 'self'); the shop's pages frame nothing of their own.
 */
export function securityHeaders({
  isHttps,
  allowStripe,
  processorOrigin,
}: {
  isHttps: (c: Context) => boolean;
  allowStripe: boolean;
  /** The built-in test processor's origin when it runs as its own process: the payment page sends the card there. */
  processorOrigin?: string;
}): MiddlewareHandler<{
  Variables: { cspNonce: string } & SecureHeadersVariables;
}> {
  const made = (console: boolean) => {
    const shared = {
      contentSecurityPolicy: contentSecurityPolicy({ allowStripe, processorOrigin, console }),
      referrerPolicy: "strict-origin-when-cross-origin",
      xFrameOptions: "DENY",
      overwrite: false,
    };
    // HSTS only over HTTPS: browsers ignore it over plain HTTP, and pinning a LAN address to HTTPS would lock its
    // shoppers out. The middleware's options are fixed when it is made, so there is one for each scheme.
    return {
      overHttps: secureHeaders({ ...shared, strictTransportSecurity: "max-age=63072000; includeSubDomains" }),
      overHttp: secureHeaders({ ...shared, strictTransportSecurity: false }),
    };
  };
  const shop = made(false);
  const consolePages = made(true);
  return async (c, next) => {
    const chosen = c.req.path === "/admin" || c.req.path.startsWith("/admin/") ? consolePages : shop;
    await (isHttps(c) ? chosen.overHttps : chosen.overHttp)(c, async () => {
      c.set("cspNonce", c.get("secureHeadersNonce") ?? "");
      await next();
    });
    // The pictures operators upload (a product's, the shop's logo) are shown in e-mails, which a mail client opens
    // from an origin of its own: same-origin would leave the logo blank there. They are public by nature.
    if (c.req.path.startsWith(PICTURE_PATH_PREFIX)) c.res.headers.set("Cross-Origin-Resource-Policy", "cross-origin");
  };
}

/**
 * Stripe's hosts, exactly where Stripe's security guide puts them (https://docs.stripe.com/security/guide#content-
 * security-policy), and only in Stripe mode. On every page, not just /payment: a shopper who lands on / and follows
 * links keeps the first document's policy, and /payment then loads Stripe.js into it.
 */
const STRIPE_SOURCES = {
  script: ["https://js.stripe.com", "https://*.js.stripe.com"],
  frame: ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"],
  connect: ["https://api.stripe.com"],
};

export function contentSecurityPolicy({
  allowStripe,
  processorOrigin,
  console = false,
}: {
  allowStripe: boolean;
  processorOrigin?: string;
  /** The operator console's pages, which show an e-mail's HTML in a sandboxed frame of this origin. */
  console?: boolean;
}) {
  const stripe = (kind: keyof typeof STRIPE_SOURCES) => (allowStripe ? STRIPE_SOURCES[kind] : []);
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", NONCE, ...stripe("script")],
    styleSrc: ["'self'", NONCE],
    imgSrc: ["'self'"],
    fontSrc: ["'self'"],
    connectSrc: ["'self'", ...stripe("connect"), ...(processorOrigin ? [processorOrigin] : [])],
    frameSrc: [...(console ? ["'self'"] : []), ...(allowStripe ? STRIPE_SOURCES.frame : [])].concat(
      console || allowStripe ? [] : ["'none'"],
    ),
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    objectSrc: ["'none'"],
  };
}
