// The shop's name for a page's title and text, from whichever layout read it, else "Storefront".

import { useRouteLoaderData } from "react-router";
import { DEFAULT_SHOP_NAME, type ShopIdentity } from "#shared/shop-settings";

/**
 * The shop's name for a page's title and text: the shop layout's (read on every navigation), else the root's (pages
 * without the header: sign-in, password), else "Storefront".
 */
export function useShopName(): string {
  const layout = useRouteLoaderData("routes/shop-layout") as { shop?: ShopIdentity } | undefined;
  const root = useRouteLoaderData("root") as { shopName?: string } | undefined;
  return layout?.shop?.name ?? root?.shopName ?? DEFAULT_SHOP_NAME;
}
