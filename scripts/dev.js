// `npm run dev`: the same server as production, with Vite's middleware in front for hot reload.
import { requireNode24 } from "./node-24.js";

requireNode24("npm run dev");
const { createServer } = await import("vite");

process.env.NODE_ENV ??= "development";
const vite = await createServer({ server: { middlewareMode: true } });
const { startServer } = await vite.ssrLoadModule("/server/main.ts");
try {
  await startServer({ devMiddleware: vite.middlewares });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await vite.close();
  process.exit(1);
}
