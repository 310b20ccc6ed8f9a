import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signWebhookPayload } from "./webhook-signature.ts";

const secret = "whsec_testsecret0123456789";
const payload = JSON.stringify({ id: "evt_1", object: "event", type: "payment_intent.succeeded", data: { object: { id: "pi_1" } } });

describe("webhook signatures", () => {
  it("are accepted by the Stripe SDK's constructEvent", () => {
    const event = Stripe.webhooks.constructEvent(payload, signWebhookPayload(payload, secret), secret);
    expect(event).toMatchObject({ id: "evt_1", type: "payment_intent.succeeded" });
  });

  it("match Stripe's own test header for the same payload, secret and time", () => {
    const timestamp = 1_700_000_000;
    expect(signWebhookPayload(payload, secret, timestamp)).toBe(Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }));
  });

  it("are refused for another secret, a changed payload or an old timestamp", () => {
    const header = signWebhookPayload(payload, secret);
    expect(() => Stripe.webhooks.constructEvent(payload, header, "whsec_other")).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => Stripe.webhooks.constructEvent(payload.replace("pi_1", "pi_2"), header, secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    const old = signWebhookPayload(payload, secret, Math.floor(Date.now() / 1000) - 600);
    expect(() => Stripe.webhooks.constructEvent(payload, old, secret)).toThrow(/Timestamp outside the tolerance zone/);
  });
});
