// The page of an error or a refusal (a 404, a form that could not be read) in the shop's frame, with a sentence
// that says what happened rather than "something went wrong".

import { isRouteErrorResponse, Link } from "react-router";
import { useShopName } from "#app/features/shell/use-shop-name";

/**
 * The sentence of a request refused with a 4xx other than 404 (app/form-request.ts: a form that could not be read),
 * to show instead of "something went wrong"; null for anything else.
 */
export function refusalMessage(error: unknown): string | null {
  if (!isRouteErrorResponse(error) || error.status < 400 || error.status >= 500 || error.status === 404) return null;
  const body: unknown = error.data;
  return body !== null && typeof body === "object" && "message" in body && typeof body.message === "string"
    ? body.message
    : null;
}

/** The body of the 404 and error pages: what happened, in a sentence, and a way home. */
export function StatusPage({ title, message }: { title: string; message: string }) {
  const shopName = useShopName();
  return (
    <main id="main" className="status-page">
      <title>{`${title} | ${shopName}`}</title>
      <h1>{title}</h1>
      <p>{message}</p>
      <Link className="button" to="/">
        Go to the home page
      </Link>
    </main>
  );
}
