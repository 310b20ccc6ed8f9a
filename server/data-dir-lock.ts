// One server per data directory: a lock file beside PGlite's files, so a second instance on the same directory stops
// instead of corrupting it.

import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "./config";

/** Beside PGlite's own files; PostgreSQL ignores files in its data directory that it does not know. */
export const LOCK_FILE_NAME = "storefront.lock";

/**
 * Claims DATA_DIR for this process until it exits. Two processes on one embedded database would each keep their
 * own view of it and one side's writes would be lost, so a second one stops here, naming the directory. The lock
 * file holds the owner's pid: created with O_EXCL, removed on exit, and taken over when that pid no longer runs
 * (a crash or a SIGKILL leaves it behind). Returns the release, which the exit hook also calls.
 */
export function lockDataDir(dataDir: string): () => void {
  createDirectory(dataDir);
  const lockPath = path.join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      const release = () => {
        if (ownerOf(lockPath, dataDir) === process.pid) unlinkSync(lockPath);
        process.off("exit", release);
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw unusableDirectory(dataDir, error);
      const owner = ownerOf(lockPath, dataDir);
      if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
        throw new ConfigError(
          `DATA_DIR ${dataDir} is in use by another Storefront process (pid ${owner}): stop it, or give this one its own DATA_DIR (or a DATABASE_URL)`,
        );
      }
      // Left by a process that is gone (or by this very pid, in a restarted container): stale.
      try {
        unlinkSync(lockPath);
      } catch (unlinkError) {
        if (errorCode(unlinkError) !== "ENOENT") throw unusableDirectory(dataDir, unlinkError);
      }
    }
  }
  throw new ConfigError(
    `DATA_DIR ${dataDir}: another process keeps claiming ${LOCK_FILE_NAME}; is a second Storefront starting there?`,
  );
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdirSync never returns for a path under /proc (it retries
 * ENOENT forever), which made DATA_DIR=/proc/nope hang the start with no output.
 */
function createDirectory(directory: string): void {
  const missing: string[] = [];
  let current = path.resolve(directory);
  while (!exists(current, directory)) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw unusableDirectory(directory, error);
    }
  }
  if (!statSync(directory).isDirectory()) throw new ConfigError(`DATA_DIR ${directory} is not a directory`);
}

function exists(candidate: string, dataDir: string): boolean {
  try {
    return statSync(candidate, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    // Something in the way (EACCES, ENOTDIR, …): what mkdir or open would say about it, in the start's one line.
    throw unusableDirectory(dataDir, error);
  }
}

function ownerOf(lockPath: string, dataDir: string): number | undefined {
  try {
    // A lock file being written reads as no pid yet (empty): nobody to wait for.
    const pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    // No lock file (its owner removed it meanwhile): nobody to wait for. One that cannot be read is in the way.
    if (errorCode(error) === "ENOENT") return undefined;
    throw unusableDirectory(dataDir, error);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // ESRCH: no such process. EPERM: it runs, under another user. Nothing else answers whether it runs.
    if (errorCode(error) === "ESRCH") return false;
    if (errorCode(error) === "EPERM") return true;
    throw error;
  }
}

function unusableDirectory(dataDir: string, error: unknown): ConfigError {
  return new ConfigError(
    `DATA_DIR ${dataDir} cannot be written (${errorCode(error) ?? String(error)}): give a writable directory`,
  );
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
