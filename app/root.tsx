// The document every page shares: head, inlined stylesheet, the test-mode notice, the shop's name for pages without the
// header, and the last-resort error page.

import { useEffect, type ReactNode } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import { requestContext } from "./context";
import { DEFAULT_SHOP_NAME } from "#shared/shop-settings";
import { useServerDocument } from "./components/server-document";
import { refusalMessage, StatusPage } from "./features/shell/status-page";

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

/**
 * Without Stripe keys the shop takes test cards only; every page says so (docs/stripe.md). The shop's name is for the
 * titles of pages without the header (sign-in, password): the shop layout's own is fresher.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  return {
    isTestMode: services.provider.mode === "built-in",
    // The page's own loaders say when the database is away; the title then names the shop by its default.
    shopName: await services.settings.identity().then(
      (shop) => shop.name,
      (error: unknown) => {
        services.logger.warn({ err: error }, "root: the shop's name could not be read, so the default is shown");
        return DEFAULT_SHOP_NAME;
      },
    ),
  };
}

/** The processor is chosen once at start: navigations need not ask again. */
export const shouldRevalidate = () => false;

export function Layout({ children }: { children: ReactNode }) {
  const serverDocument = useServerDocument();
  const isTestMode = useRouteLoaderData<typeof loader>("root")?.isTestMode ?? false;
  const nonce = serverDocument?.nonce;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#131921" />
        <Meta />
        <Links />
        {/*
          The whole stylesheet (about 7 KB gzipped) is inlined, so nothing blocks the first paint. The server
          fills it in; the browser keeps what the server sent (React leaves innerHTML alone when hydrating).
        */}
        <style
          nonce={nonce}
          dangerouslySetInnerHTML={{ __html: serverDocument?.stylesheet ?? "" }}
          suppressHydrationWarning
        />
      </head>
      <body>
        {/* Plain text in the page's flow, above everything and covering nothing, before the skip link. */}
        {isTestMode ? <p className="test-mode-ribbon">Test mode: no real payments</p> : null}
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  // Scripts start after the first paint (docs/decisions/008), so for a moment the page works as plain HTML. This
  // marks the moment it is enhanced, for styles and for the browser tests that need the enhanced page.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "";
  }, []);
  return <Outlet />;
}

/** The last resort, for errors outside the shop layout: never a stack trace, always a way home. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const refused = refusalMessage(error);
  return isRouteErrorResponse(error) && error.status === 404 ? (
    <StatusPage title="Page not found" message="We couldn't find the page you were looking for." />
  ) : refused ? (
    <StatusPage title="That request was not understood" message={refused} />
  ) : (
    <StatusPage
      title="Something went wrong"
      message="Sorry, something went wrong on our side. Please try again in a moment."
    />
  );
}
