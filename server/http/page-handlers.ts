// React Router's request handlers: the whole build for operators, the build without the console for everybody else
// (decisions/014).

import { createHash } from "node:crypto";
import { createRequestHandler, type RequestHandler, type ServerBuild } from "react-router";

/** The console's route modules (app/routes/admin/): the route ids React Router gives them. */
const isConsoleRoute = (id: string) => id.startsWith("routes/admin/");

type Assets = ServerBuild["assets"];

/**
 * The page handlers: React Router over the whole build for operators, and over the build without the console for
 * everybody else. To them /admin is an address no route claims, answered by the shop's own 404 page as any other,
 * and the route manifest their browser loads names no console route (nor grows the shop's JavaScript by them).
 * Each side's manifest is served by its handler, under its own content-hashed name, instead of the build's file
 * (which scripts/precompress.js removes): the operators' one under /admin, where only operators are answered.
 */
export function createPageHandlers(loadBuild: () => Promise<ServerBuild>, mode: "production" | "development") {
  const derived = new WeakMap<ServerBuild, { operator: ServerBuild; shop: ServerBuild }>();
  const derive = (build: ServerBuild) => {
    let both = derived.get(build);
    if (!both) {
      const keep = <T>(routes: Record<string, T>) =>
        Object.fromEntries(Object.entries(routes).filter(([id]) => !isConsoleRoute(id))) as Record<string, T>;
      const shopRoutes = keep(build.assets.routes);
      const hashOf = (routes: Assets["routes"]) =>
        createHash("sha256")
          .update(JSON.stringify({ entry: build.assets.entry, routes }))
          .digest("hex")
          .slice(0, 8);
      both = {
        operator: { ...build, assets: { ...build.assets, url: `/admin/manifest-${hashOf(build.assets.routes)}.js` } },
        shop: {
          ...build,
          routes: keep(build.routes),
          assets: { ...build.assets, routes: shopRoutes, url: `/assets/manifest-shop-${hashOf(shopRoutes)}.js` },
        },
      };
      derived.set(build, both);
    }
    return both;
  };
  // One React Router handler per build and side. Handed a function, createRequestHandler would build its routes and
  // static handler again on every request (a tenth of a signed-in page's CPU); a new build (the
  // dev server's, after an edit) gets a new handler.
  const handlers = new WeakMap<ServerBuild, RequestHandler>();
  const handler = (side: "operator" | "shop"): RequestHandler => {
    return async (request, context) => {
      const build = derive(await loadBuild())[side];
      if (request.method === "GET" && new URL(request.url).pathname === build.assets.url)
        return manifestScript(build.assets, side);
      let handle = handlers.get(build);
      if (!handle) {
        handle = createRequestHandler(build, mode);
        handlers.set(build, handle);
      }
      return handle(request, context);
    };
  };
  return { handlePageRequest: handler("operator"), handlePublicPageRequest: handler("shop") };
}

/** The manifest as the build would have written it: one script that sets it, cached as the content hash allows. */
function manifestScript(assets: Assets, side: "operator" | "shop"): Response {
  const { entry, routes, url, version } = assets;
  return new Response(`window.__reactRouterManifest=${JSON.stringify({ entry, routes, url, version })};`, {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": side === "shop" ? "public, max-age=31536000, immutable" : "private, max-age=31536000, immutable",
    },
  });
}
