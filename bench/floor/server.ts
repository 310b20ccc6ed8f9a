// The floor of the benchmark: React Router rendering the shop's home page from constant data, with no database, no
// middleware (no session, no logging, no security headers, no compression) and no shop around it. Started by the
// bench like the shop (`node bench/floor/server.ts`, PORT in the environment) from the same production build, so the
// report can show what the shop costs above the framework itself. Only GET / is meant to be measured here.
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { catalogue, PRODUCT_IMAGE_SIZE, productImagePath } from "../../server/catalogue/catalogue-data.ts";
import { SEEDED_DEPARTMENTS } from "../../server/departments/department-seed.ts";

const root = path.resolve(import.meta.dirname, "../..");
const bundle = (await import(pathToFileURL(path.join(root, "build/server/index.js")).href)) as {
  loadPageBuild(): Promise<Parameters<typeof createRequestHandler>[0]>;
  requestContext: Parameters<RouterContextProvider["set"]>[0];
};
const handle = createRequestHandler(await bundle.loadPageBuild(), "production");

// What the seeded shop's home page shows, as its catalogue service would hand it over.
const products = catalogue.map((entry) => ({
  id: entry.id,
  slug: entry.slug,
  title: entry.title,
  priceCents: entry.priceCents,
  rating: entry.rating,
  image: { src: productImagePath(entry.id, "webp"), ...PRODUCT_IMAGE_SIZE },
}));
// The header's "All" menu: the seeded tree, as the departments service would hand it over.
const departmentTree = SEEDED_DEPARTMENTS.map((top, position) => ({
  id: top.slug,
  slug: top.slug,
  description: top.description,
  name: top.name,
  parentId: null,
  position,
  children: top.children.map((child, childPosition) => ({
    id: child.slug,
    slug: child.slug,
    description: child.description,
    name: child.name,
    parentId: top.slug,
    position: childPosition,
  })),
}));
const silent = { info() {}, warn() {}, error() {} };
const services = {
  logger: silent,
  provider: { mode: "built-in" },
  catalogue: { listProducts: async () => products },
  basket: { countItems: async () => ({ count: 0, revision: 0 }) },
  departments: { listTree: async () => departmentTree },
};

const listener = getRequestListener((request) => {
  const context = new RouterContextProvider();
  context.set(bundle.requestContext, {
    services,
    requestId: "floor",
    cspNonce: "floor",
    shopper: { basketOwner: null, user: null },
    clientIp: "127.0.0.1",
    publicOrigin: "http://127.0.0.1",
    outage: { isDatabaseUnavailable: false },
    isDatabaseUnavailable: () => false,
  });
  return handle(request, context);
});
const port = Number(process.env.PORT ?? 0);
const server = createServer(listener).listen(port, "127.0.0.1", () => {
  const address = server.address();
  console.log(`Floor is ready at http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
