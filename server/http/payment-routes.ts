// The payment page's JSON-or-form routes: the checkout address and delivery option, creating the payment, and recording
// the order after the card is confirmed.

import { Hono } from "hono";
import { z } from "zod";
import { ADDRESS_ERROR_PARAM } from "#shared/address";
import { checkAddressForm, chooseSavedAddressSchema } from "#shared/address-schemas";
import { AppError } from "#shared/errors";
import { formatCents } from "#shared/money";
import { DELIVERY_ERROR_PARAM, deliveryOptionSchema } from "#shared/shipping-schemas";
import { applyPromotionSchema } from "#shared/promotion-schemas";
import { createPaymentQuerySchema, PAYMENT_PROCESSING_MESSAGE, recordOrderSchema } from "#shared/payments";
import { toShopperError } from "#server/payments/processor-errors";
import { isDatabaseUnavailable } from "#server/db/database-errors";
import type { AppEnv } from "./app-env";
import { answerFormOrJson } from "./form-or-json";
import { readBody, readRawBody } from "./read-body";
import { jsonResponse } from "./response-bytes";

const noBody = z.strictObject({});

/**
 *   POST /checkout/address { name, line1, line2?, city, region?, postalCode, country, email? } or { savedAddressId }
 *                                         the delivery address (and a guest's receipt e-mail), kept with the basket;
 *                                         200 { address, contactEmail }; 422 with the errors by field. The payment
 *                                         page's own form posts to its route action, which does the same.
 *   POST /checkout/delivery-option { methodId }   the delivery option chosen on /payment, kept beside the address;
 *                                         200 { methodId }; 400 before there is an address. An option that does not
 *                                         serve the address is priced as the cheapest one.
 *   POST /checkout/promotion { code }    applies a promotion code (one per order, in place of any other); 200 { code };
 *                                         409 with the code's sentence ("This code isn't valid.", "This code has
 *                                         expired.", "Spend $x more to use this code.", "This code has already been
 *                                         used.", "This code can't be used on an order this small."), nothing changed
 *   DELETE /checkout/promotion            takes the applied code off; 200 {}
 *   POST /payments/create?total={cents}   no body; 201 { clientSecret } for an intent priced by server/pricing from the
 *                                         server's basket, address and delivery option (its amount: the order total;
 *                                         the breakdown in its metadata); 409 "The total has changed to $x" when the
 *                                         page's total is not the order's, 400 for an empty basket, for no address and
 *                                         for an address no zone serves ("We don't deliver to {country} yet")
 *   POST /orders/record { paymentIntentId }   after the card is confirmed: the server checks the intent with the
 *                                         processor and records the order once; 201 { orderId }
 *   POST /webhooks/stripe                 signed processor events (checked on the raw body), deduplicated by event id
 */
export const paymentRoutes = new Hono<AppEnv>()
  .post("/checkout/address", (c) =>
    answerFormOrJson(c, ADDRESS_ERROR_PARAM, async () => {
      const raw = await readRawBody(c.req.raw);
      const shopper = c.get("shopper");
      const { addresses } = c.get("services");
      if (raw && typeof raw === "object" && "savedAddressId" in raw) {
        const chosen = chooseSavedAddressSchema.safeParse(raw);
        if (!chosen.success)
          throw new AppError("BAD_REQUEST", `The request was not understood. ${chosen.error.issues[0]?.message ?? ""}`);
        if (!shopper.user) throw new AppError("NOT_FOUND", "Sign in to use your saved addresses.");
        const address = await addresses.chooseSavedAddress(shopper.user.id, chosen.data.savedAddressId);
        return { json: { ...address }, status: 200, returnTo: "/payment" };
      }
      const checked = checkAddressForm(raw, { isGuest: !shopper.user });
      if (!checked.ok) {
        throw new AppError(
          "ADDRESS_INVALID",
          Object.values(checked.errors)[0] ?? "Please check the delivery address.",
          { details: { errors: checked.errors } },
        );
      }
      const owner = await shopper.ensureBasketOwner();
      const saved = await addresses.setCheckoutAddress(
        owner,
        checked.address,
        checked.contactEmail,
        checked.reminderConsent,
      );
      await c.get("services").reminderConsent.afterAddressForm(shopper.user, checked);
      return { json: { ...saved }, status: 200, returnTo: "/payment" };
    }),
  )
  .post("/checkout/delivery-option", (c) =>
    answerFormOrJson(c, DELIVERY_ERROR_PARAM, async () => {
      const raw = await readRawBody(c.req.raw);
      const chosen = deliveryOptionSchema.safeParse(raw);
      if (!chosen.success)
        throw new AppError("BAD_REQUEST", chosen.error.issues[0]?.message ?? "Choose a delivery option.");
      const owner = c.get("shopper").basketOwner;
      const kept = owner ? await c.get("services").addresses.setDeliveryMethod(owner, chosen.data.methodId) : false;
      if (!kept) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address");
      return { json: { methodId: chosen.data.methodId }, status: 200, returnTo: "/payment" };
    }),
  )
  .post("/checkout/promotion", async (c) => {
    const { code } = await readBody(c.req.raw, applyPromotionSchema);
    const shopper = c.get("shopper");
    const owner = shopper.basketOwner;
    if (!owner) throw new AppError("ADDRESS_REQUIRED", "Add a delivery address first.");
    await c.get("services").checkout.applyPromotion(owner, code, shopper.user?.email ?? null);
    return jsonResponse(c, { code }, 200);
  })
  .delete("/checkout/promotion", async (c) => {
    await readBody(c.req.raw, noBody);
    const owner = c.get("shopper").basketOwner;
    if (owner) await c.get("services").checkout.removePromotion(owner);
    return jsonResponse(c, {}, 200);
  })
  .post("/payments/create", async (c) => {
    const query = createPaymentQuerySchema.safeParse(c.req.query());
    if (!query.success)
      throw new AppError("BAD_REQUEST", `The request was not understood. ${query.error.issues[0]?.message ?? ""}.`);
    await readBody(c.req.raw, noBody);
    const { checkout, paymentLimits } = c.get("services");
    const holder = { sessionId: c.get("shopper").session?.id ?? null, ip: c.get("clientIp") };
    await paymentLimits.check("create", holder.sessionId, holder.ip);
    const { clientSecret, amountCents, dueCents } = await withProvider(() =>
      checkout.preparePayment(
        c.get("shopper").basketOwner,
        query.data.total,
        c.get("shopper").user?.email ?? null,
        holder,
      ),
    );
    // Two tabs pricing different baskets at once may leave the open intent at the other tab's amount: never hand
    // out a payment for an amount the page does not show.
    // (With balances applied, the intent is for what they leave: the page's total less the balances.)
    if (amountCents !== (dueCents ?? query.data.total)) {
      throw new AppError("TOTAL_MISMATCH", "Your basket has changed in another window. Please check it and pay again.");
    }
    return jsonResponse(c, { clientSecret }, 201, { "Cache-Control": "no-store" });
  })
  .post("/orders/record", async (c) => {
    const { paymentIntentId } = await readBody(c.req.raw, recordOrderSchema);
    const shopper = c.get("shopper");
    await c.get("services").paymentLimits.check("record", shopper.session?.id ?? null, c.get("clientIp"));
    const owner = shopper.basketOwner;
    const result = owner
      ? await withProvider(() => c.get("services").checkout.recordOrder(paymentIntentId, owner))
      : null;
    if (!result) throw new AppError("NOT_FOUND", "We could not find that payment.");
    if (result.kind === "needs-review") throw paymentHeldForReview(result.paidAmountCents);
    // Accepted, not yet paid: the order is recorded when the processor says the payment succeeded.
    if (result.kind === "processing")
      return jsonResponse(c, { processing: true, message: PAYMENT_PROCESSING_MESSAGE }, 202);
    return jsonResponse(c, { orderId: result.orderId, orderNumber: result.orderNumber }, 201);
  })
  .post("/webhooks/stripe", async (c) => {
    const signature = c.req.header("stripe-signature");
    if (!signature) throw new AppError("BAD_REQUEST", "Missing Stripe-Signature header.");
    const { webhooks } = c.get("services");
    const outcome = await webhooks.handleWebhook(await c.req.text(), signature);
    return jsonResponse(c, { received: true, outcome }, 200);
  });

function paymentHeldForReview(paidAmountCents: number): AppError {
  return new AppError(
    "PAYMENT_NEEDS_REVIEW",
    `Your payment of ${formatCents(paidAmountCents)} went through, but it does not match your basket, so no order was placed. We will refund it in full; your basket is unchanged.`,
  );
}

/**
 * Anything the provider did not already turn into a sentence of ours (payments/processor-errors.ts) gets one. A
 * database that cannot be reached is not the processor's fault: it goes on as it is, to be answered 503 with
 * Retry-After and logged as on every route (app.ts).
 */
async function withProvider<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    throw toShopperError(error);
  }
}
