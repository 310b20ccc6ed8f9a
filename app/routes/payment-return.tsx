// /payment/return: where a payment that left the page comes back, its order recorded exactly once.

import { data, Link, redirect } from "react-router";
import type { Route } from "./+types/payment-return";
import { requestContext } from "#app/context";
import { paymentReturnQuerySchema } from "#shared/payments";
import { useShopName } from "#app/features/shell/use-shop-name";

/**
 * Where a payment that left the page comes back (Stripe's return_url). The server asks the processor what became of
 * the intent and records the order exactly once; a paid order goes to Orders, anything else is said in a sentence.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const params = new URL(request.url).searchParams;
  // A client-side navigation here (a processing payment) asks for /payment/return.data with React Router's own
  // `_routes` (the routes to load): not part of the query the strict schema reads.
  params.delete("_routes");
  const query = paymentReturnQuerySchema.safeParse(Object.fromEntries(params));
  if (!query.success)
    return data({ kind: "not-found" as const, message: "This link does not name a payment." }, { status: 400 });
  const outcome = await services.paymentReturn.finish({
    paymentIntentId: query.data.payment_intent,
    owner: shopper.basketOwner,
    sessionId: shopper.session?.id ?? null,
    ip: clientIp,
  });
  if (outcome.kind === "paid") throw redirect(`/orders?placed=${encodeURIComponent(outcome.orderNumber)}`);
  return data(outcome, { status: outcome.kind === "not-found" ? 404 : outcome.kind === "failed" ? 409 : 202 });
}

export default function PaymentReturn({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const isProcessing = loaderData.kind === "processing";
  return (
    <main id="main" className="status-page">
      <title>{`${isProcessing ? "Payment processing" : "Payment not completed"} | ${shopName}`}</title>
      <h1>
        {isProcessing
          ? "Your payment is processing"
          : loaderData.kind === "failed"
            ? "Your payment did not go through"
            : "Payment not found"}
      </h1>
      <p role="status">{loaderData.message}</p>
      {isProcessing ? (
        <Link className="button" to="/orders">
          Go to your orders
        </Link>
      ) : (
        <Link className="button" to="/payment">
          Back to checkout
        </Link>
      )}
    </main>
  );
}
