// Which pages are one shopper's (basket, payment, orders, account, sign-in, token links): sent with Cache-Control
// private, no-store.

import type { MiddlewareHandler } from "hono";

/** Pages that show one shopper's basket, payment, orders or account, the sign-in pages that echo an e-mail, and those a link's token opens. */
const PERSONAL_PAGES = [
  "/checkout",
  "/payment",
  "/orders",
  "/account",
  "/login",
  "/forgot-password",
  "/reset-password",
  "/verify-email",
  "/staff-invitation",
  "/unsubscribe",
  "/stock-alerts",
];

/**
 * `Cache-Control: private, no-store` on personal pages and on their data requests (React Router's `/orders.data`),
 * so that neither a shared cache nor the browser's back-forward history keeps one shopper's page for another.
 */
export function personalPagesUncached(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const page = c.req.path.replace(/\.data$/, "").replace(/\/+$/, "");
    if (PERSONAL_PAGES.some((personal) => page === personal || page.startsWith(`${personal}/`))) {
      c.res.headers.set("Cache-Control", "private, no-store");
    }
  };
}
