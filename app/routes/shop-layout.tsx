// The shop's layout: the header, the basket's provider and the footer around every shopper's page.

import { isRouteErrorResponse, Outlet, useRouteLoaderData } from "react-router";
import type { Route } from "./+types/shop-layout";
import { requestContext, type RequestContext } from "#app/context";
import { BASKET_ERROR_PARAM, BASKET_OPTION_PARAM, BASKET_PRODUCT_PARAM } from "#shared/basket";
import { chooseOptionMessage } from "#shared/catalogue";
import { hasControlCharacter } from "#shared/local-path";
import { isStorableText } from "#shared/storable-text";
import { basketErrorMessage } from "#shared/basket-messages";
import { consoleHomeOf } from "#shared/console-access";
import { BasketProvider } from "#app/features/basket/basket-context";
import { BasketAnnouncer } from "#app/features/basket/components/basket-announcer";
import { SiteHeader, type SiteHeaderProps } from "#app/features/shell/site-header";
import { SiteFooter } from "#app/features/shell/site-footer";
import { DEFAULT_SHOP_NAME } from "#shared/shop-settings";
import { VerifyEmailNotice } from "#app/features/account/verify-email-notice";
import { refusalMessage, StatusPage } from "#app/features/shell/status-page";
import { useRevalidateOnFocus } from "#app/features/shell/use-revalidate-on-focus";

/**
 * What every screen with the header needs: the shop's name and logo, the greeting, the basket count, the departments,
 * and a basket error to show, if any.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, shopper } = context.get(requestContext);
  const [basket, tree, shop] = await Promise.all([
    shopper.basketOnArrival ?? services.basket.countItems(shopper.basketOwner),
    services.departments.listTree(),
    services.settings.identity(),
  ]);
  const params = new URL(request.url).searchParams;
  const errorCode = params.get(BASKET_ERROR_PARAM);
  // The product whose form failed, so the sentence is shown next to it; any text will do, it only picks a form.
  const productId = params.get(BASKET_PRODUCT_PARAM);
  const basketError = errorCode
    ? {
        text:
          (errorCode === "OPTION_REQUIRED" && (await unchosenOptionMessage(services, productId, params))) ||
          basketErrorMessage(errorCode),
        productId,
      }
    : null;
  const header: SiteHeaderProps = {
    shop,
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
  return { header, basketError, isUnverified, shop };
}

/** "Choose a Size.": the option named from the catalogue by its position, never from the address's text. */
async function unchosenOptionMessage(
  services: RequestContext["services"],
  productId: string | null,
  params: URLSearchParams,
): Promise<string | undefined> {
  const position = Number(params.get(BASKET_OPTION_PARAM));
  const isId = productId && productId.length <= 64 && !hasControlCharacter(productId) && isStorableText(productId);
  if (!isId || !Number.isInteger(position) || position < 1) return undefined;
  const { options } = await services.catalogue.readOptionsAndVariants(productId);
  const option = options[position - 1];
  return option ? chooseOptionMessage(option.name) : undefined;
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
      <SiteFooter shopName={loaderData.shop.name} supportEmail={loaderData.shop.supportEmail} />
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
      <SiteFooter shopName={data?.shop.name ?? DEFAULT_SHOP_NAME} supportEmail={data?.shop.supportEmail ?? null} />
    </BasketProvider>
  );
}
