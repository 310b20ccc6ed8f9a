import type { MiddlewareHandler } from "hono";

/**
 * Headers every response carries. The Content-Security-Policy allows this origin only (in the default mode the
 * shop loads nothing from any other host; in Stripe mode, Stripe's hosts as Stripe documents). React Router's inline hydration scripts run by a per-response nonce, never by
 * 'unsafe-inline'. The nonce is handed on in `cspNonce` for the page renderer to stamp on its scripts.
 */
export function securityHeaders({
  isProduction,
  allowStripe,
  processorOrigin,
}: {
  isProduction: boolean;
  allowStripe: boolean;
  /** The built-in test processor's origin when it runs as its own process: the payment page sends the card there. */
  processorOrigin?: string;
}): MiddlewareHandler<{
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
    if (isProduction) headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    headers.set("Content-Security-Policy", contentSecurityPolicy(nonce, { allowStripe, processorOrigin }));
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

export function contentSecurityPolicy(nonce: string, { allowStripe, processorOrigin }: { allowStripe: boolean; processorOrigin?: string }): string {
  const stripe = (kind: keyof typeof STRIPE_SOURCES) => (allowStripe ? ` ${STRIPE_SOURCES[kind]}` : "");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${stripe("script")}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${stripe("connect")}${processorOrigin ? ` ${processorOrigin}` : ""}`,
    `frame-src ${allowStripe ? STRIPE_SOURCES.frame : "'none'"}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}
