/**
 * The hosted authentication page: the processor's stand-in for the bank's 3-D Secure page Stripe sends a shopper to
 * (`next_action.redirect_to_url.url`), like Stripe's own test page: the amount, and a button to complete or to fail.
 * Plain HTML, no script and no style, so it works in any browser and under any Content-Security-Policy.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Integer cents as the page shows them: "11.96 USD" (the processor takes only USD, whose minor unit is 2 digits). */
function formatAmount(amount: number, currency: string): string {
  return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The challenge: the form posts the shopper's answer to this same address. */
export function authenticationPage(amount: number, currency: string): string {
  return document(
    "Authenticate your payment | 3D Secure test page",
    `<h1>Authenticate your payment</h1>
<p>This is the test processor's 3D Secure page, standing in for your bank's: no real bank is asked.</p>
<p>Payment of <strong>${escapeHtml(formatAmount(amount, currency))}</strong></p>
<form method="post">
<button type="submit" name="outcome" value="complete">Complete authentication</button>
<button type="submit" name="outcome" value="fail">Fail authentication</button>
</form>`,
  );
}

/** A link that was already answered, never existed, or whose payment moved on. */
export function authenticationPageGone(message: string): string {
  return document(
    "Authentication page not available | 3D Secure test page",
    `<h1>Authentication page not available</h1>\n<p>${escapeHtml(message)}</p>`,
  );
}

/** Headers of every answer of the page: never cached, never framed, and its address (which holds a token) never sent on. */
export const AUTHENTICATION_PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
} as const;

/** Where the shopper goes back to: the confirm's return_url with Stripe's three parameters added to its own. */
export function returnLocation(
  returnUrl: string,
  intent: { id: string; client_secret: string; status: string },
): string {
  const location = new URL(returnUrl);
  location.searchParams.set("payment_intent", intent.id);
  location.searchParams.set("payment_intent_client_secret", intent.client_secret);
  location.searchParams.set("redirect_status", intent.status === "succeeded" ? "succeeded" : "failed");
  return location.toString();
}
