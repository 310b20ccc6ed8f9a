import { isRouteErrorResponse, Outlet, useRouteLoaderData } from "react-router";
import type { Route } from "./+types/shop-layout";
import { requestContext } from "#app/context";
import { BASKET_ERROR_PARAM, BASKET_PRODUCT_PARAM } from "#shared/basket";
import { basketErrorMessage } from "#shared/basket-messages";
import { consoleHomeOf } from "#shared/console-access";
import { BasketProvider } from "#app/features/basket/basket-context";
import { BasketAnnouncer } from "#app/features/basket/components/basket-announcer";
import { SiteHeader, type SiteHeaderProps } from "#app/features/shell/site-header";
import { VerifyEmailNotice } from "#app/features/account/verify-email-notice";
import { refusalMessage, StatusPage } from "#app/features/shell/status-page";
import { useRevalidateOnFocus } from "#app/features/shell/use-revalidate-on-focus";

/** What every screen with the header needs: the greeting, the basket count, the departments, and a basket error to show, if any. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const [basket, tree] = await Promise.all([
    shopper.basketOnArrival ?? services.basket.countItems(shopper.basketOwner),
    services.departments.listTree(),
  ]);
  const params = new URL(request.url).searchParams;
  const errorCode = params.get(BASKET_ERROR_PARAM);
  // The product whose form failed, so the sentence is shown next to it; any text will do, it only picks a form.
  const basketError = errorCode
    ? { text: basketErrorMessage(errorCode), productId: params.get(BASKET_PRODUCT_PARAM) }
    : null;
  const header: SiteHeaderProps = {
    greetingName: shopper.user?.email ?? null,
    basketCount: basket.count,
    basketRevision: basket.revision,
    departments: tree.map((top) => ({
      name: top.name,
      slug: top.slug,
      children: top.children.map((child) => ({ name: child.name, slug: child.slug })),
    })),
    // Only staff's pages carry the link: nobody else's data says the console exists.
    ...(shopper.user?.console ? { consoleHome: consoleHomeOf(shopper.user.console) } : {}),
  };
  // Only an account known to be unconfirmed sees the notice; shopping never waits for it.
  const isUnverified = shopper.user?.isEmailVerified === false;
  return { header, basketError, isUnverified };
}

export default function ShopLayout({ loaderData }: Route.ComponentProps) {
  useRevalidateOnFocus();
  return (
    <BasketProvider
      snapshot={{ owner: loaderData.header.greetingName, revision: loaderData.header.basketRevision }}
      formError={loaderData.basketError}
    >
      <SiteHeader {...loaderData.header} />
      {loaderData.isUnverified ? <VerifyEmailNotice /> : null}
      <BasketAnnouncer />
      <Outlet />
    </BasketProvider>
  );
}

const guestHeader: SiteHeaderProps = { greetingName: null, basketCount: 0, basketRevision: 0 };

/** A page that failed keeps the header (when it could be loaded) and offers a way home; never a stack trace. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const data = useRouteLoaderData<typeof loader>("routes/shop-layout");
  const isNotFound = isRouteErrorResponse(error) && error.status === 404;
  const refused = refusalMessage(error);
  const header = data?.header ?? guestHeader;
  return (
    <BasketProvider snapshot={{ owner: header.greetingName, revision: header.basketRevision }}>
      <SiteHeader {...header} />
      {isNotFound ? (
        <StatusPage title="Page not found" message="We couldn't find the page you were looking for." />
      ) : refused ? (
        <StatusPage title="That request was not understood" message={refused} />
      ) : (
        <StatusPage
          title="Something went wrong"
          message="Sorry, something went wrong on our side. Please try again in a moment."
        />
      )}
    </BasketProvider>
  );
}
