// `npm start`: the production server. Builds first when no build is present, so a fresh clone needs only
// `npm ci && npm start`. Only PORT, DATA_DIR and DATABASE_URL (all optional) need be set.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const serverEntry = `${root}build/server/index.js`;

if (!existsSync(serverEntry)) {
  console.log("No build found: building the shop first (npm run build)...");
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

process.env.NODE_ENV ??= "production";
const { startServer } = await import(serverEntry);
try {
  await startServer({ clientBuildDir: `${root}build/client` });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
