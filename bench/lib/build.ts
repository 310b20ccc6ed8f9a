import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface BuildInfo {
  /** Whether this run built the shop (no build was present, or BENCH_BUILD=1). */
  builtNow: boolean;
  /** Files under app/, server/, shared/, images/, public/ or the build config changed after the build: figures may not match the source. */
  stale: boolean;
  /** The newest source file that is newer than the build, when stale. */
  newerSource?: string;
  builtAt: string;
}

const SOURCE_DIRS = ["app", "server", "shared", "images", "public"];
const SOURCE_FILES = ["vite.config.ts", "react-router.config.ts", "package-lock.json"];

/** Builds the shop when build/server/index.js is missing (or when forced), and tells whether the build is older than the source. */
export async function ensureBuild(root: string, { force = false, timeoutMs = 5 * 60_000 } = {}): Promise<BuildInfo> {
  const serverEntry = path.join(root, "build/server/index.js");
  let builtNow = false;
  if (force || !existsSync(serverEntry)) {
    console.error(force ? "bench: BENCH_BUILD=1, building the shop..." : "bench: no build found, building the shop...");
    await runBuild(root, timeoutMs);
    builtNow = true;
    if (!existsSync(serverEntry)) throw new Error(`the build finished but ${serverEntry} is missing`);
  }
  const builtAtMs = statSync(serverEntry).mtimeMs;
  const newest = newestSource(root);
  const stale = newest !== undefined && newest.mtimeMs > builtAtMs;
  return {
    builtNow,
    stale,
    newerSource: stale ? path.relative(root, newest.file) : undefined,
    builtAt: new Date(builtAtMs).toISOString(),
  };
}

function runBuild(root: string, timeoutMs: number): Promise<void> {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  const [command, args] = pkg.scripts?.build ? ["npm", ["run", "build"]] : ["npx", ["react-router", "build"]];
  console.error(`bench: ${command} ${args.join(" ")}`);
  // The build's own node must be this Node 24, whatever PATH says.
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", 2, 2] });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the build took longer than ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the build failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

function newestSource(root: string): { file: string; mtimeMs: number } | undefined {
  let newest: { file: string; mtimeMs: number } | undefined;
  const consider = (file: string) => {
    const { mtimeMs } = statSync(file);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(dir, entry.name);
      // Tests and test helpers are not part of the build.
      if (entry.isDirectory()) {
        if (entry.name !== "__tests__" && entry.name !== "testing") walk(full);
      } else if (entry.isFile() && !/\.(test|spec)\.[cm]?[jt]sx?$/.test(entry.name)) consider(full);
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(path.join(root, dir))) walk(path.join(root, dir));
  for (const file of SOURCE_FILES) if (existsSync(path.join(root, file))) consider(path.join(root, file));
  return newest;
}

/** When the build on disk was written (mtime of build/server/index.js), or undefined when there is none. */
export function buildStamp(root: string): number | undefined {
  try {
    return statSync(path.join(root, "build/server/index.js")).mtimeMs;
  } catch {
    return undefined;
  }
}
