// /conditions: the shop's terms and conditions, as written in its settings.

import type { Route } from "./+types/conditions";
import { requestContext } from "#app/context";
import { PlainTextPage } from "#app/features/legal/plain-text-page";
import { LEGAL_PAGE_TITLES } from "#shared/shop-settings";

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const settings = await services.settings.current();
  return { text: settings.legalTexts.conditions, shopName: settings.name };
}

export default function Conditions({ loaderData }: Route.ComponentProps) {
  return (
    <PlainTextPage
      title={LEGAL_PAGE_TITLES.conditions}
      text={loaderData.text}
      shopName={loaderData.shopName}
      description={`${loaderData.shopName}'s conditions of use and sale.`}
    />
  );
}
