import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // The server bundle's entry is our own server (server/main.ts), which imports React Router's build:
  // pages, JSON routes and services then share one module graph and one database handle.
  environments: {
    ssr: { build: { target: "node24", rollupOptions: { input: "./server/main.ts" } } },
  },
  plugins: [reactRouter()],
});
