// The console's layout: its stylesheet and side navigation around every console page, and its own error page; staff
// only.

import { isRouteErrorResponse, Link, Outlet, useRouteLoaderData } from "react-router";
import { CONSOLE_SECTIONS, consoleHomeOf, mayUse } from "#shared/console-access";
import { refusalMessage } from "#app/features/shell/status-page";
import type { Route } from "./+types/admin-layout";
import consoleStyles from "#app/styles/console.css?url";
import { ConsoleNav } from "#app/features/admin/console-nav";
import { ConsoleBar } from "#app/features/admin/console-bar";
import { requireConsole } from "./require-operator";

/** The console's own stylesheet, loaded by its pages only: the shop's inlined stylesheet stays as it is. */
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: consoleStyles }];

export function loader({ context }: Route.LoaderArgs) {
  const { actor, access } = requireConsole(context, "routes/admin/admin-layout");
  return {
    operatorEmail: actor.email,
    sections: CONSOLE_SECTIONS.filter((section) => mayUse(access, section.route)).map(({ to, label }) => ({
      to,
      label,
    })),
    home: consoleHomeOf(access),
  };
}

export function meta() {
  return [{ name: "robots", content: "noindex" }];
}

/**
 * The console's frame: a bar with who is signed in, a side navigation with the current page marked (a strip under the
 * bar on a phone), and the page. Its look is app/styles/console.css; its shared pieces app/features/admin/.
 */
export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <div className="console">
      <a className="console-skip" href="#main">
        Skip to content
      </a>
      <ConsoleBar home={loaderData.home} operatorEmail={loaderData.operatorEmail} />
      <div className="console-frame">
        <ConsoleNav sections={loaderData.sections} />
        <Outlet />
      </div>
    </div>
  );
}

/** A product that does not exist, or a failure: said plainly, with a way back to the list. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const home = useRouteLoaderData<typeof loader>("routes/admin/admin-layout")?.home ?? "/admin";
  const isNotFound = isRouteErrorResponse(error) && error.status === 404;
  const refused = refusalMessage(error);
  return (
    <main id="main" className="console-main">
      <title>{isNotFound ? "Not found | Console" : "Error | Console"}</title>
      <h1>{isNotFound ? "Not found" : refused ? "That request was not understood" : "Something went wrong"}</h1>
      <p>
        {isNotFound
          ? "There is nothing at this address."
          : (refused ?? "Sorry, something went wrong. Please try again in a moment.")}
      </p>
      <p>
        <Link to={home}>Back to the console</Link>
      </p>
    </main>
  );
}
