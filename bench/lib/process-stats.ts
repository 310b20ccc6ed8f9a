import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Whether a process still exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resident memory of a process in MiB, from /proc (Linux); undefined elsewhere or once it has gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere or once it has gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    // Fields after the command name (which is in parentheses and may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    // USER_HZ is 100 on every Linux the bench runs on.
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits until a process uses less than `busyBelow` of one core over a second (e.g. a server that is still working
 * through what a previous load left it: webhook deliveries, queued requests), for at most `maxMs`. Returns the
 * seconds waited; at once where /proc cannot tell.
 */
export async function waitUntilIdle(pid: number, { busyBelow = 0.15, maxMs = 30_000 } = {}): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < maxMs) {
    const before = cpuSecondsOf(pid);
    await sleep(1_000);
    const after = cpuSecondsOf(pid);
    if (before === undefined || after === undefined || after - before < busyBelow) break;
  }
  return Math.round((performance.now() - started) / 100) / 10;
}
