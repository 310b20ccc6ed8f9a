import { reactRouter } from "@react-router/dev/vite";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/** The shop's own source folders (absolute, as module ids are), so that no dependency's folder of the same name matches. */
const shopSources = ["app", "shared"].map((folder) => fileURLToPath(new URL(`./${folder}/`, import.meta.url)));

/** Orders' and addresses' shared data (statuses, countries, US states): only the personal pages need it, not every page. */
const personalData = ["shared/address.ts", "shared/orders.ts"].map((file) =>
  fileURLToPath(new URL(`./${file}`, import.meta.url)),
);

/** The operator console's own folders (docs/decisions/014). */
const consoleSources = ["app/features/admin", "app/routes/admin"].map((folder) =>
  fileURLToPath(new URL(`./${folder}/`, import.meta.url)),
);

/** The route modules a visit to / runs, whose JavaScript has a budget (bench/README.md). */
const homePageRoutes = ["app/root.tsx", "app/routes/shop-layout.tsx", "app/routes/home.tsx"].map((file) =>
  fileURLToPath(new URL(`./${file}`, import.meta.url)),
);

/** Whether the home page's routes import `id`, directly or through other modules (static imports only). */
function isOnHomePage(
  id: string,
  graph: { getModuleInfo(id: string): { importedIds: readonly string[] } | null },
): boolean {
  const seen = new Set(homePageRoutes);
  const queue = [...homePageRoutes];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (next === id) return true;
    for (const imported of graph.getModuleInfo(next)?.importedIds ?? []) {
      if (!seen.has(imported)) {
        seen.add(imported);
        queue.push(imported);
      }
    }
  }
  return false;
}

/** The shop's own pictures (shared/shop-pictures.ts). */
const shopPictures = fileURLToPath(new URL("./images/", import.meta.url));

export default defineConfig({
  // A picture is always a file of its own, cached apart from the page and the scripts, never a data: URL in them,
  // however small. Other assets keep Vite's rule.
  build: { assetsInlineLimit: (file) => (file.startsWith(shopPictures) ? false : undefined) },
  environments: {
    // The server bundle's entry is our own server (server/main.ts), which imports React Router's build:
    // pages, JSON routes and services then share one module graph and one database handle.
    ssr: { build: { target: "node24", rollupOptions: { input: "./server/main.ts" } } },
    // Fewer, larger browser chunks (docs/decisions/008): React, React DOM and React Router in one, the shop's
    // code shared by several pages in another. Every page needs both; as eleven files they were 2.5 kB more
    // gzipped (each file compresses alone) and eleven modules to fetch and run instead of seven. The shared code
    // the home page does not run (sign-in forms, basket lines, dates, the legal pages) is a third, which / never loads.
    client: {
      build: {
        // SOURCEMAP=1 npm run build: source maps beside the chunks, to see what a chunk carries (bench/README.md).
        sourcemap: process.env.SOURCEMAP === "1",
        rolldownOptions: {
          output: {
            codeSplitting: {
              groups: [
                {
                  name: "framework",
                  test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/,
                  priority: 2,
                },
                // The operator console's shared pieces stay out of it: the shop's pages never load them.
                {
                  name: (id, graph) => (isOnHomePage(id, graph) ? "shop" : "shop-pages"),
                  debugName: "shop",
                  test: (id) =>
                    shopSources.some((folder) => id.startsWith(folder)) &&
                    !consoleSources.some((folder) => id.startsWith(folder)) &&
                    !personalData.includes(id),
                  minShareCount: 2,
                  // Before orders and addresses: a group takes what its modules import, and the basket's line
                  // amounts (shared/pricing.ts, which orders import too) would otherwise go there, making / load it.
                  priority: 2,
                },
                { name: "orders-and-addresses", test: (id) => personalData.includes(id), priority: 2 },
              ],
            },
          },
        },
      },
    },
  },
  plugins: [reactRouter()],
});
