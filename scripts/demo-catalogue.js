// `npm run demo-catalogue` adds the demo catalogue (about sixty products with pictures, in the departments) to the
// shop's database; `npm run demo-catalogue -- --remove` takes it away. With PGlite, stop the server first (one
// process per data directory). It runs the server build's own code (server/imports/demo-catalogue.ts), building first
// when the build is missing or older than the source, as `npm start` does.
import { requireNode24 } from "./node-24.js";

requireNode24("npm run demo-catalogue");
const { existsSync } = await import("node:fs");
const { spawnSync } = await import("node:child_process");
const { fileURLToPath } = await import("node:url");
const { sourceNewerThanBuild } = await import("./build-freshness.js");

const root = fileURLToPath(new URL("..", import.meta.url));
const serverEntry = `${root}build/server/index.js`;
const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--remove");
if (unknown.length > 0) {
  console.error(`Unknown argument ${unknown.join(" ")}; usage: npm run demo-catalogue [-- --remove]`);
  process.exit(2);
}
if (!existsSync(serverEntry) || sourceNewerThanBuild(root)) {
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
process.env.NODE_ENV ??= "production";
const { runDemoCatalogue } = await import(serverEntry);
try {
  console.log(await runDemoCatalogue({ remove: args.includes("--remove"), picturesDir: `${root}images/demo` }));
  process.exit(0);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
