// The "Confirm your alert" link's page.

import { Link } from "react-router";
import type { Route } from "./+types/stock-alert-confirm";
import { requestContext } from "#app/context";
import { useShopName } from "#app/features/shell/use-shop-name";

/** The "Confirm your alert" e-mail's link. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const token = (new URL(request.url).searchParams.get("token") ?? "").slice(0, 100);
  return { isConfirmed: await services.stockAlerts.confirm(token) };
}

export default function StockAlertConfirm({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  return (
    <main id="main" className="legal">
      <title>{`Your alert | ${shopName}`}</title>
      <meta name="robots" content="noindex" />
      <h1>Your alert</h1>
      {loaderData.isConfirmed ? (
        <p role="status">We&apos;ll e-mail you when it&apos;s back.</p>
      ) : (
        <p role="alert">This confirmation link is not complete. Please use the whole link from the e-mail.</p>
      )}
      <p>
        <Link to="/">Continue shopping</Link>
      </p>
    </main>
  );
}
