// The system services the fault stories run (PgBouncer, Patroni, etcd, PostgreSQL, HAProxy): installed when missing,
// started and stopped as an operator would.

import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Debian's packages the fault stories run (PgBouncer, Patroni, etcd, PostgreSQL 15, HAProxy), as an operator's
 * machine has them: installed with apt-get when missing and the test may (it runs as root, as CI does). Returns
 * whether every command is there afterwards; a story without them is skipped and says why.
 */
export function ensureDebianPackages(commands: Record<string, string>): boolean {
  const isMissing = (command: string) =>
    !existsSync(command) && spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status !== 0;
  const missing = Object.entries(commands).filter(([command]) => isMissing(command));
  if (missing.length === 0) return true;
  if (process.getuid?.() !== 0) {
    console.warn(`missing ${missing.map(([, pkg]) => pkg).join(", ")} and not root: cannot install them`);
    return false;
  }
  const packages = [...new Set(missing.map(([, pkg]) => pkg))];
  console.info(`installing Debian's ${packages.join(", ")}...`);
  // No service starts from a package's install script here (policy-rc.d or no init): the story starts its own.
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "ignore", env }).status === 0;
  if (!install()) {
    spawnSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
    install();
  }
  return Object.keys(commands).every((command) => !isMissing(command));
}

/** PostgreSQL, PgBouncer and Patroni refuse to run as root: as root, the story runs them as the postgres user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) throw new Error("running as root, and there is no postgres user to run PostgreSQL as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** A temporary directory the service's user owns. */
export function serviceDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  const user = postgresUser();
  if (user) chownSync(directory, user.uid, user.gid);
  return directory;
}

/** Writes a file in a service's directory, owned by the service's user and readable only by it (keys, auth files). */
export function writeServiceFile(file: string, content: string, mode = 0o600): void {
  writeFileSync(file, content, { mode });
  const user = postgresUser();
  if (user) chownSync(file, user.uid, user.gid);
}

/** Makes everything under a directory the service user's (a data directory created by another step). */
export function chownTree(directory: string): void {
  const user = postgresUser();
  if (!user) return;
  chownSync(directory, user.uid, user.gid);
  for (const entry of readdirSync(directory)) {
    const full = path.join(directory, entry);
    if (statSync(full).isDirectory()) chownTree(full);
    else chownSync(full, user.uid, user.gid);
  }
}

export interface ServiceProcess {
  child: ChildProcess;
  log: () => string;
}

/** Starts a service as the postgres user (when root), collecting its output for a failure's message. */
export function startService(command: string, args: string[], options: SpawnOptions = {}): ServiceProcess {
  const child = spawn(command, args, { ...options, ...postgresUser(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, log: () => output };
}

/** Stops a service and waits for it to go: SIGTERM, SIGKILL if it has not gone within `graceMs`. */
export async function stopService(service: ServiceProcess | undefined, graceMs = 5_000): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = once(service.child, "exit");
  service.child.kill("SIGTERM");
  const timer = setTimeout(() => service.child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
}

/**
 * PgBouncer with the shipped deploy/pgbouncer.ini, its [databases] line, port and files replaced: `database` as the
 * shop names it, reaching `target` (host:port/dbname); trust between the story and PgBouncer, as on the test server.
 */
export async function startPgBouncer(options: {
  port: number;
  database: string;
  target: { host: string; port: number; dbname: string };
  users: string[];
  poolSize: number;
}) {
  const shipped = readFileSync(path.join(import.meta.dirname, "../../deploy/pgbouncer.ini"), "utf8");
  const directory = serviceDirectory("storefront-pgbouncer-");
  const replacements: [RegExp, string][] = [
    [
      /^storefront = .*$/m,
      `${options.database} = host=${options.target.host} port=${options.target.port} dbname=${options.target.dbname}`,
    ],
    [/^listen_port = .*$/m, `listen_port = ${options.port}`],
    [/^default_pool_size = .*$/m, `default_pool_size = ${options.poolSize}`],
    [/^auth_type = .*$/m, "auth_type = trust"],
    [/^auth_file = .*$/m, `auth_file = ${directory}/userlist.txt`],
    [/^logfile = .*$/m, `logfile = ${directory}/pgbouncer.log`],
    [/^pidfile = .*$/m, `pidfile = ${directory}/pgbouncer.pid`],
  ];
  let config = shipped;
  for (const [pattern, replacement] of replacements) {
    if (!pattern.test(config)) throw new Error(`deploy/pgbouncer.ini no longer has the expected shape (${pattern})`);
    config = config.replace(pattern, replacement);
  }
  if (!/^pool_mode = transaction$/m.test(config)) throw new Error("deploy/pgbouncer.ini is not in transaction mode");
  writeServiceFile(path.join(directory, "userlist.txt"), options.users.map((user) => `"${user}" ""`).join("\n") + "\n");
  writeServiceFile(path.join(directory, "pgbouncer.ini"), config);
  const service = startService("pgbouncer", [path.join(directory, "pgbouncer.ini")], { cwd: directory });
  await waitForPort(options.port, 15_000).catch((error: unknown) => {
    throw new Error(
      `PgBouncer did not start: ${service.log()}\n${existsSync(`${directory}/pgbouncer.log`) ? readFileSync(`${directory}/pgbouncer.log`, "utf8") : ""}`,
      { cause: error },
    );
  });
  return {
    ...service,
    directory,
    log: () =>
      existsSync(`${directory}/pgbouncer.log`) ? readFileSync(`${directory}/pgbouncer.log`, "utf8") : service.log(),
  };
}
