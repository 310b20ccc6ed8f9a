// `npm start`: the production server. Builds first when no build is present or a source is newer than the build,
// so a fresh clone needs only `npm ci && npm start` and a changed checkout is never served from an old build.
// `npm start` runs `exec node scripts/start.js`: the shell npm starts is replaced by this process, so the SIGTERM
// npm passes on (from a process manager or a container stop) reaches the server, which drains and exits.
import { requireNode24 } from "./node-24.js";

requireNode24("npm start");
const { existsSync } = await import("node:fs");
const { spawnSync } = await import("node:child_process");
const { fileURLToPath } = await import("node:url");
const { sourceNewerThanBuild } = await import("./build-freshness.js");

const root = fileURLToPath(new URL("..", import.meta.url));
const serverEntry = `${root}build/server/index.js`;

const reason = existsSync(serverEntry) ? staleBuildReason() : "No build found";
if (reason) {
  console.log(`${reason}: building the shop first (npm run build)...`);
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function staleBuildReason() {
  const newer = sourceNewerThanBuild(root);
  return newer ? `The build is older than ${newer}` : null;
}

process.env.NODE_ENV ??= "production";
const { startServer } = await import(serverEntry);
try {
  await startServer({ clientBuildDir: `${root}build/client` });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
