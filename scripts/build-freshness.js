// Whether the production build in build/ was made from the sources as they are now. `npm start` rebuilds when a
// source is newer than the build, so that a changed checkout is never served from an old build.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * What the build is made from: the shop's folders, the workspace packages it bundles (the test processor, the
 * migrator, prepared statements), and the files that configure the build or its dependencies.
 */
export const BUILD_INPUTS = [
  "app",
  "server",
  "shared",
  "packages",
  "images",
  "public",
  "package.json",
  "package-lock.json",
  "vite.config.ts",
  "react-router.config.ts",
  "tsconfig.json",
  "scripts/precompress.js",
];

/** The file the build writes last but one (precompressing follows); its time is the build's. */
export const BUILD_STAMP = "build/server/index.js";

/**
 * The source newer than the build (relative to root), or null when the build is current. Test files are not built.
 * Inputs that are absent (a deployment that ships only build/) do not count.
 */
export function sourceNewerThanBuild(root) {
  const builtAt = statSync(path.join(root, BUILD_STAMP)).mtimeMs;
  for (const input of BUILD_INPUTS) {
    const newer = findNewer(path.join(root, input), builtAt);
    if (newer) return path.relative(root, newer);
  }
  return null;
}

function findNewer(entry, builtAt) {
  let stats;
  try {
    stats = statSync(entry);
  } catch {
    return null;
  }
  if (!stats.isDirectory()) return stats.mtimeMs > builtAt && !/\.test\.[jt]sx?$/.test(entry) ? entry : null;
  // A package's own installed dependencies, if npm put any there, are package-lock.json's to track.
  if (path.basename(entry) === "node_modules") return null;
  for (const child of readdirSync(entry)) {
    const newer = findNewer(path.join(entry, child), builtAt);
    if (newer) return newer;
  }
  return null;
}
