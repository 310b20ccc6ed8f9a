// /privacy: the shop's privacy notice, as written in its settings.

import type { Route } from "./+types/privacy";
import { requestContext } from "#app/context";
import { PlainTextPage } from "#app/features/legal/plain-text-page";
import { LEGAL_PAGE_TITLES } from "#shared/shop-settings";

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const settings = await services.settings.current();
  return { text: settings.legalTexts.privacy, shopName: settings.name };
}

export default function Privacy({ loaderData }: Route.ComponentProps) {
  return (
    <PlainTextPage
      title={LEGAL_PAGE_TITLES.privacy}
      text={loaderData.text}
      shopName={loaderData.shopName}
      description={`What ${loaderData.shopName} keeps about you, and how to have it erased.`}
    />
  );
}
