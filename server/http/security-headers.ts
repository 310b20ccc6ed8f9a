// The security headers every response carries: a Content-Security-Policy of this origin only (with a nonce or hashes),
// HSTS over HTTPS, and the rest of Hono's secure headers.

import { randomBytes } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { PICTURE_PATH_PREFIX } from "#server/pictures/picture-store";

/**
 * Headers every response carries: Hono's secure headers, and a Content-Security-Policy that allows this origin only
 * (in the default mode the shop loads nothing from any other host; in Stripe mode, Stripe's hosts as Stripe
 * documents). React Router's inline hydration scripts and the inlined stylesheet run by a per-response nonce, never
 * by 'unsafe-inline'. The nonce is made only when a page asks for it (`cspNonce()`, called as the document renders): a
 * JSON answer, a webhook or a script file runs no inline code, so its policy names no nonce and costs no random
 * bytes. A response that carries its own policy (an e-mail's HTML as sent, shown in the console's frame) keeps it:
 * two policies would both apply, and the shop's would strip the e-mail of its styles. The console's pages may frame
 * the shop's own documents (frame-src 'self'); the shop's pages frame nothing of their own.
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
}): MiddlewareHandler<{ Variables: { cspNonce: () => string } }> {
  const made = (console: boolean) => {
    const shared = { referrerPolicy: "strict-origin-when-cross-origin", xFrameOptions: "DENY", overwrite: false };
    // HSTS only over HTTPS: browsers ignore it over plain HTTP, and pinning a LAN address to HTTPS would lock its
    // shoppers out. The middleware's options are fixed when it is made, so there is one for each scheme.
    return {
      policy: contentSecurityPolicy({ allowStripe, processorOrigin, console }),
      overHttps: secureHeaders({ ...shared, strictTransportSecurity: "max-age=63072000; includeSubDomains" }),
      overHttp: secureHeaders({ ...shared, strictTransportSecurity: false }),
    };
  };
  const shop = made(false);
  const consolePages = made(true);
  return async (c, next) => {
    const chosen = c.req.path === "/admin" || c.req.path.startsWith("/admin/") ? consolePages : shop;
    let nonce: string | undefined;
    c.set("cspNonce", () => (nonce ??= randomBytes(16).toString("base64")));
    await (isHttps(c) ? chosen.overHttps : chosen.overHttp)(c, next);
    if (!c.res.headers.has("Content-Security-Policy"))
      c.res.headers.set("Content-Security-Policy", chosen.policy(nonce));
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

/** The policy's text: scripts and styles also run by `'nonce-…'` when the response was given a nonce. */
export function contentSecurityPolicy({
  allowStripe,
  processorOrigin,
  console = false,
}: {
  allowStripe: boolean;
  processorOrigin?: string;
  /** The operator console's pages, which show an e-mail's HTML in a sandboxed frame of this origin. */
  console?: boolean;
}): (nonce?: string) => string {
  const stripe = (kind: keyof typeof STRIPE_SOURCES) => (allowStripe ? STRIPE_SOURCES[kind] : []);
  const frameSources = [...(console ? ["'self'"] : []), ...stripe("frame")];
  const text = (nonceSource: string[]) =>
    [
      ["default-src", "'self'"],
      ["script-src", "'self'", ...nonceSource, ...stripe("script")],
      ["style-src", "'self'", ...nonceSource],
      ["img-src", "'self'"],
      ["font-src", "'self'"],
      ["connect-src", "'self'", ...stripe("connect"), ...(processorOrigin ? [processorOrigin] : [])],
      ["frame-src", ...(frameSources.length > 0 ? frameSources : ["'none'"])],
      ["frame-ancestors", "'none'"],
      ["base-uri", "'self'"],
      ["form-action", "'self'"],
      ["object-src", "'none'"],
    ]
      .map((directive) => directive.join(" "))
      .join("; ");
  const withoutNonce = text([]);
  return (nonce) => (nonce === undefined ? withoutNonce : text([`'nonce-${nonce}'`]));
}
