// An e-mail's HTML exactly as sent, as a sandboxed document of its own.

import { requireConsole } from "./require-operator";
import type { Route } from "./+types/outbox-email-html";

/**
 * An e-mail's HTML exactly as it was sent, as its own document under its own policy alone (the shop's headers keep a
 * response's own). Sandboxed: no script runs, no form posts and nothing is fetched but its own inline styles and the
 * shop's pictures, whatever the e-mail holds; the console's own pages may frame it, as a mail client shows it.
 */
export async function loader({ context, params }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/outbox-email-html");
  const email = await services.email.getOutboxEmail(params.id);
  if (!email || email.htmlBody.length === 0)
    return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(email.htmlBody, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy":
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'",
      "X-Frame-Options": "SAMEORIGIN",
      "Cache-Control": "private, no-store",
    },
  });
}
