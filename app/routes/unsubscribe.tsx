// An e-mail's unsubscribe link: opening it asks, the button or a one-click POST stops that kind of e-mail.

import { Form } from "react-router";
import type { Route } from "./+types/unsubscribe";
import { requestContext } from "#app/context";
import { readFormOrRefuse } from "#app/form-request";
import { useShopName } from "#app/features/shell/use-shop-name";

const PURPOSE_NAMES = {
  "review-requests": "review requests",
  "stock-alerts": "stock alerts",
  "basket-reminders": "basket reminders",
} as const;

/**
 * An e-mail's unsubscribe link. Opening it (a GET, which link scanners also make) only asks; the button, or a mail
 * client's one-click POST (RFC 8058: "List-Unsubscribe=One-Click" to the same address, no cookie), stops that kind
 * of e-mail to the address.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const token = (new URL(request.url).searchParams.get("token") ?? "").slice(0, 100);
  const found = await services.emailPreferences.findUnsubscribe(token);
  return { token, what: found ? PURPOSE_NAMES[found.purpose] : null, isDone: false };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { services } = context.get(requestContext);
  const fields = await readFormOrRefuse(request);
  const token = (new URL(request.url).searchParams.get("token") ?? fields.token ?? "").slice(0, 100);
  const done = await services.emailPreferences.unsubscribe(token);
  return { token, what: done ? PURPOSE_NAMES[done.purpose] : null, isDone: done !== null };
}

export default function Unsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { token, what, isDone } = actionData ?? loaderData;
  return (
    <main id="main" className="legal">
      <title>{`Unsubscribe | ${shopName}`}</title>
      <meta name="robots" content="noindex" />
      <h1>Unsubscribe</h1>
      {what === null ? (
        <p role="alert">This unsubscribe link is not complete. Please use the whole link from the e-mail.</p>
      ) : isDone ? (
        <p role="status">{`You are unsubscribed: this address gets no more ${what}.`}</p>
      ) : (
        <Form method="post">
          <input type="hidden" name="token" value={token} />
          <p>{`Stop ${what} to this e-mail address?`}</p>
          <button type="submit" className="button">
            Unsubscribe
          </button>
        </Form>
      )}
    </main>
  );
}
