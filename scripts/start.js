// `npm start`: the production server. Builds first when no build is present or a source is newer than the build,
// so a fresh clone needs only `npm ci && npm start` and a changed checkout is never served from an old build.
// `npm start` runs `exec node scripts/start.js`: the shell npm starts is replaced by this process, so the SIGTERM
// npm passes on (from a process manager or a container stop) reaches the server, which drains and exits.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { sourceNewerThanBuild } from "./build-freshness.js";

// Before anything that needs Node 24: one clear line instead of a syntax error or an engine warning.
const nodeMajor = Number(process.versions.node.split(".")[0]);
if (nodeMajor < 24) {
  console.error(`Storefront needs Node.js 24 or later; this is Node.js ${process.versions.node}.`);
  process.exit(1);
}

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
