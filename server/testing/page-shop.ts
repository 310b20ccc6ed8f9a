// The shop with its pages for tests, server and routes loaded through Vite into one module graph as npm run dev does.

import type { ServerBuild } from "react-router";
import { createServer } from "vite";
import type { DatabaseHandle } from "#server/db/client";
import { createPageHandlers } from "#server/http/page-handlers";
import type { ShopOptions } from "#server/shop";
import { createTestShop } from "./test-app";

/**
 * The shop with its pages, as `npm run dev` assembles it: the server and the route modules are loaded through Vite
 * into one module graph. They must share it: the HTTP app hands the loaders their services under app/context.ts's
 * key, in React Router's RouterContextProvider, and copies of those modules from the test's own graph would be
 * other keys and another class. Closing stops Vite; the database belongs to the test.
 */
export async function createPageShop(database: DatabaseHandle, options: Partial<ShopOptions> = {}) {
  const vite = await createServer({
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: "custom",
    logLevel: "error",
  });
  try {
    const inViteGraph = (await vite.ssrLoadModule("/server/testing/page-shop.ts")) as {
      assemblePageShop: typeof assemblePageShop;
    };
    const shop = await inViteGraph.assemblePageShop(database, options);
    return { ...shop, close: () => vite.close() };
  } catch (error) {
    await vite.close();
    throw error;
  }
}

/** The other half of createPageShop, run inside Vite's module graph. */
export async function assemblePageShop(database: DatabaseHandle, options: Partial<ShopOptions>) {
  const loadBuild = () => import("virtual:react-router/server-build") as Promise<ServerBuild>;
  const shop = await createTestShop(database, { ...options, ...createPageHandlers(loadBuild, "production") });
  // The route table as React Router holds it (app/routes.ts): each route's full path, and whether it has an action.
  const { routes } = await loadBuild();
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return route.path ? `${parent.replace(/\/$/, "")}/${route.path}` : parent;
  };
  const routeTable = Object.values(routes).map((route) => ({
    id: route!.id,
    path: fullPath(route!.id) || "/",
    index: route!.index === true,
    hasLoader: typeof route!.module.loader === "function",
    hasAction: typeof route!.module.action === "function",
  }));
  return { ...shop, routeTable };
}
