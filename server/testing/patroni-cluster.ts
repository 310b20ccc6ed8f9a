// The fault stories' PostgreSQL cluster: two nodes under Patroni with etcd and HAProxy, from the shipped deploy files
// with the test host's ports.

import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  chownTree,
  startService,
  stopService,
  waitForPort,
  writeServiceFile,
  type ServiceProcess,
} from "./system-services";

/**
 * Two PostgreSQL 15 nodes under Patroni with one etcd, and HAProxy sending connections to the primary: the shipped
 * files in deploy/patroni/, with their addresses, ports and directories replaced by the test host's, and trust
 * instead of passwords (as on the test server). Everything lives under `directory`.
 */
const root = path.join(import.meta.dirname, "../..");
const shipped = (file: string) => readFileSync(path.join(root, "deploy/patroni", file), "utf8");

export interface ClusterPorts {
  /** PostgreSQL of each node. */
  postgres: [number, number];
  /** Patroni's REST API of each node. */
  rest: [number, number];
  /** HAProxy's port for the primary: what the shop connects to. */
  primary: number;
  etcdClient: number;
  etcdPeer: number;
}

function replaceAll(text: string, replacements: [RegExp | string, string][], file: string): string {
  let result = text;
  for (const [pattern, replacement] of replacements) {
    const next = result.replace(pattern, replacement);
    if (next === result)
      throw new Error(`deploy/patroni/${file} no longer has the expected shape (${String(pattern)})`);
    result = next;
  }
  return result;
}

function etcdEnvironment(directory: string, ports: ClusterPorts): Record<string, string> {
  const text = replaceAll(
    shipped("etcd.env"),
    [
      [`http://10.0.0.10:2379,http://127.0.0.1:2379`, `http://127.0.0.1:${ports.etcdClient}`],
      [/10\.0\.0\.10:2379/g, `127.0.0.1:${ports.etcdClient}`],
      [/10\.0\.0\.10:2380/g, `127.0.0.1:${ports.etcdPeer}`],
      [/^ETCD_DATA_DIR=.*$/m, `ETCD_DATA_DIR=${directory}/etcd`],
    ],
    "etcd.env",
  );
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^ETCD_[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

function patroniConfig(directory: string, ports: ClusterPorts, node: 0 | 1): string {
  return replaceAll(
    shipped("patroni.yml"),
    [
      [/^name: pg1 .*$/m, `name: pg${node + 1}`],
      [/^ {2}listen: 0\.0\.0\.0:8008$/m, `  listen: 127.0.0.1:${ports.rest[node]}`],
      [/^ {2}connect_address: 10\.0\.0\.11:8008.*$/m, `  connect_address: 127.0.0.1:${ports.rest[node]}`],
      [/^ {2}hosts: 10\.0\.0\.10:2379$/m, `  hosts: 127.0.0.1:${ports.etcdClient}`],
      [
        /^ {2}pg_hba:\n( {4}- .*\n)+/m,
        "  pg_hba:\n    - host replication all 127.0.0.1/32 trust\n    - host all all 127.0.0.1/32 trust\n    - local all all trust\n",
      ],
      [/^ {2}listen: 0\.0\.0\.0:5432$/m, `  listen: 127.0.0.1:${ports.postgres[node]}`],
      [/^ {2}connect_address: 10\.0\.0\.11:5432.*$/m, `  connect_address: 127.0.0.1:${ports.postgres[node]}`],
      [/^ {2}data_dir: .*$/m, `  data_dir: ${directory}/pg${node + 1}/data`],
      [/^ {2}pgpass: .*$/m, `  pgpass: ${directory}/pg${node + 1}/pgpass`],
      [/^ {4}unix_socket_directories: .*$/m, `    unix_socket_directories: ${directory}/pg${node + 1}`],
    ],
    "patroni.yml",
  );
}

function haproxyConfig(ports: ClusterPorts): string {
  return replaceAll(
    shipped("haproxy.cfg"),
    [
      [/bind :5000/, `bind 127.0.0.1:${ports.primary}`],
      [
        /(# nodes:begin[^\n]*\n)[\s\S]*?(\s*# nodes:end)/,
        `$1${[0, 1].map((node) => `    server pg${node + 1} 127.0.0.1:${ports.postgres[node]} maxconn 300 check port ${ports.rest[node]}`).join("\n")}$2`,
      ],
    ],
    "haproxy.cfg",
  );
}

export interface ClusterMember {
  name: string;
  role: string;
  state: string;
}

export async function startPatroniCluster(directory: string, ports: ClusterPorts) {
  const etcd = startService("etcd", [], {
    env: { PATH: process.env.PATH, ...etcdEnvironment(directory, ports) },
    cwd: directory,
  });
  await waitForPort(ports.etcdClient, 20_000).catch((error: unknown) => {
    throw new Error(`etcd did not start:\n${etcd.log()}`, { cause: error });
  });
  const nodes: (ServiceProcess | undefined)[] = [];
  const startNode = (node: 0 | 1) => {
    mkdirSync(path.join(directory, `pg${node + 1}`), { recursive: true });
    chownTree(path.join(directory, `pg${node + 1}`));
    const configFile = path.join(directory, `pg${node + 1}.yml`);
    writeServiceFile(configFile, patroniConfig(directory, ports, node));
    nodes[node] = startService("patroni", [configFile], {
      env: { PATH: process.env.PATH, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
      cwd: directory,
    });
  };
  startNode(0);
  startNode(1);
  const haproxyFile = path.join(directory, "haproxy-postgres.cfg");
  writeServiceFile(haproxyFile, haproxyConfig(ports), 0o644);
  const haproxy = startService("haproxy", ["-db", "-f", haproxyFile], { cwd: directory });

  const members = async (): Promise<ClusterMember[]> => {
    for (const rest of ports.rest) {
      const response = await fetch(`http://127.0.0.1:${rest}/cluster`, { signal: AbortSignal.timeout(1_000) }).catch(
        () => null,
      );
      if (response?.ok) return ((await response.json()) as { members: ClusterMember[] }).members;
    }
    return [];
  };

  return {
    etcd,
    nodes,
    haproxy,
    members,
    /** The node Patroni's REST API answers 200 for on GET /primary, if any. */
    async primary(): Promise<0 | 1 | null> {
      for (const node of [0, 1] as const) {
        const response = await fetch(`http://127.0.0.1:${ports.rest[node]}/primary`, {
          signal: AbortSignal.timeout(1_000),
        }).catch(() => null);
        if (response?.status === 200) return node;
      }
      return null;
    },
    /** A leader and a streaming synchronous standby: a commit acknowledged from now on is on both nodes. */
    async isReplicatingSynchronously(): Promise<boolean> {
      const now = await members();
      return (
        now.some((member) => member.role === "leader" && member.state === "running") &&
        now.some((member) => member.role === "sync_standby" && ["running", "streaming"].includes(member.state))
      );
    },
    /**
     * The node as a machine failure takes it: Patroni, the postmaster and every backend at once, with SIGKILL.
     * Nothing is shut down cleanly, nothing tells etcd; the leader key expires by itself.
     */
    killNode(node: 0 | 1): number[] {
      const patroni = nodes[node]!.child.pid!;
      const dataDir = path.join(directory, `pg${node + 1}`, "data");
      const postmaster = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      const victims = [patroni, postmaster, ...childrenOf(postmaster), ...childrenOf(patroni)];
      for (const pid of new Set(victims)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      return [...new Set(victims)];
    },
    async stop() {
      await stopService(haproxy);
      // Patroni stops its PostgreSQL on SIGTERM (a fast shutdown); a killed node has nothing left to stop.
      await Promise.all(nodes.map((node) => stopService(node, 20_000)));
      for (const node of [0, 1]) {
        // A postmaster left behind by a killed Patroni (not in this story's kill, which takes both) would keep its port.
        try {
          const pid = Number(
            readFileSync(path.join(directory, `pg${node + 1}`, "data", "postmaster.pid"), "utf8").split("\n")[0],
          );
          if (pid > 0 && isAlive(pid)) process.kill(pid, "SIGKILL");
        } catch {
          // No data directory, or no postmaster.
        }
      }
      await stopService(etcd);
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (PostgreSQL's backends and helpers under its postmaster). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid ...: comm may hold spaces or parentheses, so read after its last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}
