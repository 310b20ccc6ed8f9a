import { createHmac } from "node:crypto";

/**
 * Stripe's webhook signature (docs.stripe.com/webhooks#verify-manually): `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<payload>" keyed with the whsec_ secret>`. The SDK's `stripe.webhooks.constructEvent` checks exactly this,
 * and refuses a timestamp older than five minutes, so every delivery attempt is signed afresh.
 */
export function signWebhookPayload(payload: string, secret: string, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac("sha256", secret).update(`${timestampSeconds}.${payload}`, "utf8").digest("hex");
  return `t=${timestampSeconds},v1=${signature}`;
}
