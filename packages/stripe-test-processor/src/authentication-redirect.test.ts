import type Stripe from "stripe";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../testing/test-database.ts";
import {
  cardFields,
  startProcessorTestServer,
  stripeFailure,
  type ProcessorTestServer,
} from "../testing/processor-test-server.ts";

const RETURN_URL = "https://shop.example/payment/return?from=checkout";

describeEachDatabase(
  "3-D Secure by redirect: next_action.redirect_to_url and the hosted authentication page",
  (getDatabase) => {
    let processor: ProcessorTestServer;
    beforeAll(async () => {
      processor = await startProcessorTestServer(getDatabase().db);
    });
    afterAll(async () => {
      await processor?.close();
    });

    /** An intent as the shop creates it (automatic payment methods), confirmed from a server with a return_url. */
    async function redirected(paymentMethod = "pm_card_authenticationRequired") {
      const created = await processor.stripe.paymentIntents.create({
        amount: 1196,
        currency: "usd",
        automatic_payment_methods: { enabled: true },
      });
      const intent = await processor.stripe.paymentIntents.confirm(created.id, {
        payment_method: paymentMethod,
        return_url: RETURN_URL,
      });
      const url = intent.next_action?.redirect_to_url?.url;
      if (!url) throw new Error(`no redirect_to_url: ${JSON.stringify(intent.next_action)}`);
      return { intent, url };
    }
    /** The shopper's button on the hosted page: a plain form post, the redirect not followed. */
    const answer = (url: string, outcome: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ outcome }),
        redirect: "manual",
      });
    const eventsOf = (id: string, type: string) =>
      processor.received.filter(({ event }) => event.type === type && (event.data.object as { id?: string }).id === id);

    it("answers a server's confirm with a return_url with redirect_to_url, as the SDK types it", async () => {
      const { intent, url } = await redirected();
      expect(intent).toMatchObject({ status: "requires_action", amount_received: 0 });
      const nextAction: Stripe.PaymentIntent.NextAction | null = intent.next_action;
      expect(nextAction).toEqual({ type: "redirect_to_url", redirect_to_url: { url, return_url: RETURN_URL } });
      expect(url).toMatch(new RegExp(`^${processor.origin}/_processor/3d_secure/${intent.id}/[A-Za-z0-9]{32}$`));
      expect((await processor.stripe.paymentIntents.retrieve(intent.id)).next_action).toEqual(nextAction);
    });

    it("keeps use_stripe_sdk for Stripe.js's confirm and for a confirm without a return_url", async () => {
      const withSdk = await processor.stripe.paymentIntents.create({ amount: 1196, currency: "usd" });
      // Stripe.js's confirmPayment sends both: the page shows the challenge itself, and nothing leaves it.
      const response = await processor.browserPost(`/v1/payment_intents/${withSdk.id}/confirm`, {
        ...cardFields(withSdk.client_secret ?? "", "4000002760003184"),
        return_url: RETURN_URL,
      });
      expect(await response.json()).toMatchObject({
        status: "requires_action",
        next_action: { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } },
      });

      const cardsOnly = await processor.stripe.paymentIntents.create({
        amount: 1196,
        currency: "usd",
        allowed_payment_method_types: ["card"],
      });
      const confirmed = await processor.stripe.paymentIntents.confirm(cardsOnly.id, {
        payment_method: "pm_card_authenticationRequired",
      });
      expect(confirmed.next_action).toEqual({
        type: "use_stripe_sdk",
        use_stripe_sdk: { type: "three_d_secure_redirect" },
      });
    });

    it("redirects a browser's confirm that names a return_url without use_stripe_sdk (a method that leaves the page)", async () => {
      const intent = await processor.stripe.paymentIntents.create({ amount: 1196, currency: "usd" });
      const fields: Record<string, string> = {
        ...cardFields(intent.client_secret ?? "", "4000002760003184"),
        return_url: RETURN_URL,
      };
      delete fields.use_stripe_sdk;
      const body = (await (
        await processor.browserPost(`/v1/payment_intents/${intent.id}/confirm`, fields)
      ).json()) as Stripe.PaymentIntent;
      expect(body).toMatchObject({
        status: "requires_action",
        next_action: { type: "redirect_to_url", redirect_to_url: { return_url: RETURN_URL } },
      });
    });

    it("completes on the hosted page: back to the return_url with Stripe's parameters, paid, one webhook, and the link spent", async () => {
      const { intent, url } = await redirected();
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("cache-control")).toBe("no-store");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await page.text();
      expect(html).toContain('<html lang="en">');
      expect(html).toContain("11.96 USD");
      expect(html).toContain('<form method="post">');
      expect(html).toContain('<button type="submit" name="outcome" value="complete">Complete authentication</button>');
      expect(html).toContain('<button type="submit" name="outcome" value="fail">Fail authentication</button>');
      expect(html).not.toContain("<script");

      const completed = await answer(url, "complete");
      expect(completed.status).toBe(303);
      const back = new URL(completed.headers.get("location") ?? "");
      expect(back.origin + back.pathname).toBe("https://shop.example/payment/return");
      expect(Object.fromEntries(back.searchParams)).toEqual({
        from: "checkout",
        payment_intent: intent.id,
        payment_intent_client_secret: intent.client_secret,
        redirect_status: "succeeded",
      });
      expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
        status: "succeeded",
        amount_received: 1196,
        next_action: null,
      });

      // Used once: neither shown nor answered again, and the payment is reported once.
      expect((await fetch(url)).status).toBe(404);
      const again = await answer(url, "complete");
      expect(again.status).toBe(404);
      expect(await again.text()).toContain("This authentication page has already been used or has expired.");
      expect(await answer(url, "fail").then((response) => response.status)).toBe(404);
      await processor.waitFor(() => (eventsOf(intent.id, "payment_intent.succeeded").length > 0 ? true : undefined));
      await processor.delivery.deliverDue();
      expect(eventsOf(intent.id, "payment_intent.succeeded")).toHaveLength(1);
      expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: "succeeded" });
    });

    it("fails on the hosted page: back with redirect_status=failed, the intent ready for another card, payment_failed once", async () => {
      const { intent, url } = await redirected();
      const failed = await answer(url, "fail");
      expect(failed.status).toBe(303);
      expect(new URL(failed.headers.get("location") ?? "").searchParams.get("redirect_status")).toBe("failed");
      expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
        status: "requires_payment_method",
        next_action: null,
        last_payment_error: { code: "payment_intent_authentication_failure" },
      });
      expect((await answer(url, "complete")).status).toBe(404);
      await processor.waitFor(() =>
        eventsOf(intent.id, "payment_intent.payment_failed").length > 0 ? true : undefined,
      );
      expect(eventsOf(intent.id, "payment_intent.payment_failed")).toHaveLength(1);
      expect(
        await processor.stripe.paymentIntents.confirm(intent.id, {
          payment_method: "pm_card_visa",
          return_url: RETURN_URL,
        }),
      ).toMatchObject({ status: "succeeded" });
    });

    it("sends back redirect_status=failed when the card is declined after a completed authentication", async () => {
      const { intent, url } = await redirected("pm_card_authenticationRequiredChargeDeclinedInsufficientFunds");
      const completed = await answer(url, "complete");
      expect(new URL(completed.headers.get("location") ?? "").searchParams.get("redirect_status")).toBe("failed");
      expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
        status: "requires_payment_method",
        last_payment_error: { decline_code: "insufficient_funds" },
      });
    });

    it("counts one of two answers sent at once", async () => {
      const { intent, url } = await redirected();
      const statuses = (await Promise.all([answer(url, "complete"), answer(url, "complete"), answer(url, "fail")])).map(
        (response) => response.status,
      );
      expect(statuses.toSorted()).toEqual([303, 404, 404]);
      await processor.delivery.deliverDue();
      const settled = [
        ...eventsOf(intent.id, "payment_intent.succeeded"),
        ...eventsOf(intent.id, "payment_intent.payment_failed"),
      ];
      expect(settled).toHaveLength(1);
    });

    it("spends the link when the payment moves on otherwise: the API's authenticate, another card, a cancel", async () => {
      const viaApi = await redirected();
      const authenticated = await processor.browserPost(`/v1/payment_intents/${viaApi.intent.id}/authenticate`, {
        client_secret: viaApi.intent.client_secret ?? "",
        outcome: "complete",
      });
      expect(authenticated.status).toBe(200);
      expect((await fetch(viaApi.url)).status).toBe(404);

      const anotherCard = await redirected();
      expect(
        await processor.stripe.paymentIntents.confirm(anotherCard.intent.id, {
          payment_method: "pm_card_visa",
          return_url: RETURN_URL,
        }),
      ).toMatchObject({ status: "succeeded" });
      expect((await answer(anotherCard.url, "complete")).status).toBe(404);

      const reconfirmed = await redirected();
      const second = await processor.stripe.paymentIntents.confirm(reconfirmed.intent.id, {
        payment_method: "pm_card_authenticationRequired",
        return_url: RETURN_URL,
      });
      expect(second.next_action?.redirect_to_url?.url).not.toBe(reconfirmed.url);
      expect((await fetch(reconfirmed.url)).status).toBe(404);

      const canceled = await redirected();
      await processor.stripe.paymentIntents.cancel(canceled.intent.id);
      expect((await fetch(canceled.url)).status).toBe(404);
    });

    it("refuses a wrong token, a malformed address, an unknown answer and a return_url that is not a URL", async () => {
      const { intent, url } = await redirected();
      const wrongToken = url.replace(/[A-Za-z0-9]{32}$/, "A".repeat(32));
      expect((await fetch(wrongToken)).status).toBe(404);
      expect((await answer(wrongToken, "complete")).status).toBe(404);
      expect((await fetch(`${processor.origin}/_processor/3d_secure/${intent.id}/short`)).status).toBe(404);
      const odd = await answer(url, "maybe");
      expect(odd.status).toBe(400);
      expect(await odd.text()).toContain("Choose Complete authentication or Fail authentication.");
      expect((await answer(url, "")).status).toBe(400);
      expect(await processor.stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: "requires_action" });

      const other = await processor.stripe.paymentIntents.create({ amount: 1196, currency: "usd" });
      const notUrl = await stripeFailure(
        processor.stripe.paymentIntents.confirm(other.id, {
          payment_method: "pm_card_visa",
          return_url: "/payment/return",
        }),
      );
      expect(notUrl).toMatchObject({ statusCode: 400, code: "url_invalid", param: "return_url" });
    });
  },
);
