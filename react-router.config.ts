import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The whole route manifest comes with the page (0.6 kB gzipped for this shop) instead of being fetched from
  // /__manifest for every link on screen after hydration: that fetch and the routes it patched in were a long
  // main-thread task on every page load (docs/decisions/008).
  routeDiscovery: { mode: "initial" },
} satisfies Config;
