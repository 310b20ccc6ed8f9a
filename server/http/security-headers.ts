import type { Context, MiddlewareHandler } from "hono";

/**
 * Headers every response carries. The Content-Security-Policy allows this origin only (in the default mode the
 * shop loads nothing from any other host; in Stripe mode, Stripe's hosts as Stripe documents). React Router's inline hydration scripts run by a per-response nonce, never by
 * 'unsafe-inline'. The nonce is handed on in `cspNonce` for the page renderer to stamp on its scripts.
 */
export function securityHeaders({ isHttps, allowStripe }: { isHttps: (c: Context) => boolean; allowStripe: boolean }): MiddlewareHandler<{
  Variables: { cspNonce: string };
}> {
  return async (c, next) => {
    const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
    c.set("cspNonce", nonce);
    await next();
    const headers = c.res.headers;
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
    headers.set("X-Frame-Options", "DENY");
    headers.set("Cross-Origin-Opener-Policy", "same-origin");
    // Only over HTTPS: browsers ignore it over plain HTTP, and pinning a LAN address to HTTPS would lock its shoppers out.
    if (isHttps(c)) headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    headers.set("Content-Security-Policy", contentSecurityPolicy(nonce, { allowStripe }));
  };
}

/**
 * Stripe's hosts, exactly where Stripe's security guide puts them (https://docs.stripe.com/security/guide#content-
 * security-policy), and only in Stripe mode. On every page, not just /payment: a shopper who lands on / and follows
 * links keeps the first document's policy, and /payment then loads Stripe.js into it.
 */
const STRIPE_SOURCES = {
  script: "https://js.stripe.com https://*.js.stripe.com",
  frame: "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com",
  connect: "https://api.stripe.com",
} as const;

export function contentSecurityPolicy(nonce: string, { allowStripe }: { allowStripe: boolean }): string {
  const stripe = (kind: keyof typeof STRIPE_SOURCES) => (allowStripe ? ` ${STRIPE_SOURCES[kind]}` : "");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${stripe("script")}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${stripe("connect")}`,
    `frame-src ${allowStripe ? STRIPE_SOURCES.frame : "'none'"}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}
