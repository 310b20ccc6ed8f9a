// The floor of the benchmark: React Router rendering the shop's pages from constant data, with no database, no
// middleware (no session, no logging, no security headers, no compression) and no shop around it. Started by the
// bench like the shop (`node bench/floor/server.ts`, PORT in the environment) from the same production build, so the
// report can show what the shop costs above the framework itself. The pages it is measured on: GET /, the product
// page of the seeded "the-lean-startup" and /search?q=monitor, each as the bench's signed-in shopper sees it (an
// unconfirmed account with one item in the basket), from the seeded shop's data.
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { getRequestListener } from "@hono/node-server";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { catalogue, PRODUCT_IMAGE_SIZE, productImagePath } from "../../server/catalogue/catalogue-data.ts";
import { SEEDED_DEPARTMENTS } from "../../server/departments/department-seed.ts";
import { DEFAULT_SHOP_NAME } from "../../shared/shop-settings.ts";

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
const cards = catalogue.map((entry) => ({
  ...products.find((product) => product.id === entry.id)!,
  ratingCount: 0,
}));
/** The top-level department of each seeded product (the tree above keys departments by slug). */
const departmentOf = new Map<string, string>(
  SEEDED_DEPARTMENTS.flatMap((top) => [
    ...top.products.map((id) => [id, top.slug] as const),
    ...top.children.flatMap((child) => child.products.map((id) => [id, top.slug] as const)),
  ]),
);
/** The seeded shop's product page: one variant, stock not tracked, no reviews yet. */
function productPage(slug: string) {
  const entry = catalogue.find((candidate) => candidate.slug === slug);
  if (!entry) return { kind: "unknown" };
  const card = cards.find((product) => product.id === entry.id)!;
  return {
    kind: "product",
    product: {
      ...card,
      description: entry.description,
      options: [],
      variants: [
        {
          id: entry.id,
          optionValues: [],
          sku: null,
          priceCents: entry.priceCents,
          compareAtCents: null,
          weightGrams: 500,
          chargeTax: true,
          stock: { tracksStock: false, continueSelling: false, available: null },
        },
      ],
    },
    departmentIds: departmentOf.has(entry.id) ? [departmentOf.get(entry.id)] : [],
    ratingCounts: [],
    firstReviews: { reviews: [], hasNext: false },
  };
}
/** The seeded products whose title or description holds the query, as the catalogue's search lists them. */
function search(query: string, state: { page: number; options: Record<string, string[]> }) {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const found = cards.filter((card) => {
    const text = `${card.title} ${catalogue.find((entry) => entry.id === card.id)!.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
  const departmentCounts: Record<string, number> = {};
  for (const card of found) {
    const department = departmentOf.get(card.id);
    if (department) departmentCounts[department] = (departmentCounts[department] ?? 0) + 1;
  }
  return {
    query,
    products: found,
    total: found.length,
    page: state.page,
    pageCount: Math.ceil(found.length / 24),
    departmentCounts,
    optionFacets: [],
    appliedOptions: {},
  };
}
const trail = (ids: readonly string[]) =>
  ids.flatMap((id) => departmentTree.filter((top) => top.id === id).map(({ name, slug }) => ({ name, slug })));
const services = {
  logger: silent,
  provider: { mode: "built-in" },
  settings: { identity: async () => ({ name: DEFAULT_SHOP_NAME, logo: null }) },
  catalogue: {
    // A new list for each request, as search and the product page are: the shop's pages keep a part's HTML for as
    // long as its data is the same object (app/components/kept-html.tsx), and the floor is the page rendered whole.
    listProducts: async () => [...cards],
    listMoreToExplore: async () => [],
    findProductPage: async (slug: string) => productPage(slug),
    productPage: async (slug: string) => productPage(slug),
    search: async (query: string, state: { page: number; options: Record<string, string[]> }) => search(query, state),
    searchFallback: async () => ({ suggestion: null, featured: [] }),
  },
  basket: { countItems: async () => ({ count: 1, revision: 1 }) },
  departments: {
    listTree: async () => departmentTree,
    findBySlug: async () => undefined,
    trailOf: async (ids: readonly string[]) => trail(ids),
  },
  reviews: {
    listReviews: async () => ({ reviews: [], hasNext: false }),
    eligibility: async () => ({ canReview: false, existing: null }),
    summaryOf: () => ({ count: 0, average: null, starCounts: [0, 0, 0, 0, 0] }),
  },
};
/** The bench's signed-in shopper: an account not yet confirmed, one item in the basket. */
const user = { id: "floor", email: "bench@example.com", isEmailVerified: false };

const listener = getRequestListener((request) => {
  const context = new RouterContextProvider();
  context.set(bundle.requestContext, {
    services,
    requestId: "floor",
    cspNonce: "floor",
    shopper: { basketOwner: { userId: user.id }, user, basketOnArrival: { count: 1, revision: 1 } },
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
