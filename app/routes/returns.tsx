import type { Route } from "./+types/returns";
import { requestContext } from "#app/context";
import { PlainTextPage } from "#app/features/legal/plain-text-page";
import { formatCents } from "#shared/money";
import { LEGAL_PAGE_TITLES } from "#shared/shop-settings";

export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const [settings, policy] = await Promise.all([services.settings.current(), services.settings.returnPolicy()]);
  return { text: settings.legalTexts.returns, shopName: settings.name, policy };
}

/** The returns page: the window, fee and address the settings hold, then the shop's own words. */
export default function Returns({ loaderData }: Route.ComponentProps) {
  const { policy, shopName } = loaderData;
  const days = `${policy.windowDays} ${policy.windowDays === 1 ? "day" : "days"}`;
  return (
    <PlainTextPage
      title={LEGAL_PAGE_TITLES.returns}
      text={loaderData.text}
      shopName={shopName}
      description={`How to return an item to ${shopName}: within ${days} of delivery.`}
      summary={
        <dl className="legal__facts">
          <dt>Return window</dt>
          <dd>{policy.windowDays === 0 ? "We do not take returns." : `${days} from delivery`}</dd>
          <dt>Return fee</dt>
          <dd>{policy.feeCents === 0 ? "Free" : formatCents(policy.feeCents)}</dd>
          {policy.address ? (
            <>
              <dt>Send returns to</dt>
              <dd>
                {policy.address.split("\n").map((line, index) => (
                  <span key={index} className="legal__address-line">
                    {line}
                  </span>
                ))}
              </dd>
            </>
          ) : null}
        </dl>
      }
    />
  );
}
