import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Machine {
  os: string;
  arch: string;
  cpuModel: string;
  cores: number;
  totalMemoryGiB: number;
  node: string;
  /** 1, 5 and 15-minute load averages when the run started: well above 0 means something else was busy. */
  loadAverageAtStart: number[];
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    totalMemoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    loadAverageAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/**
 * Share of all cores' time spent busy over `ms` milliseconds, in percent: a direct look at whether something else is
 * using the machine right now (the load average lags by a minute or more, and still counts the previous run).
 */
export async function cpuBusyPercent(ms = 1_000): Promise<number> {
  const totals = () =>
    os.cpus().reduce(
      (sum, cpu) => {
        const { user, nice, sys, idle, irq } = cpu.times;
        return { busy: sum.busy + user + nice + sys + irq, all: sum.all + user + nice + sys + idle + irq };
      },
      { busy: 0, all: 0 },
    );
  const before = totals();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = totals();
  const all = after.all - before.all;
  return all > 0 ? Math.round(((after.busy - before.busy) / all) * 1000) / 10 : 0;
}

/** The short commit hash of HEAD, read-only (`git rev-parse`), or "unknown" outside a repository. */
export function gitCommit(root: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      // Never take the index lock: another engineer may be using git in this checkout.
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
      timeout: 10_000,
    }).trim();
  } catch {
    return "unknown";
  }
}

/**
 * Writes <dir>/latest.json and <dir>/latest.md (the newest run replaces the previous one: git keeps the older runs)
 * (history.ts keeps a row of each run's headline figures); returns their paths.
 */
export function writeResults(dir: string, json: unknown, markdown: string) {
  mkdirSync(dir, { recursive: true });
  const jsonPath = path.join(dir, "latest.json");
  const markdownPath = path.join(dir, "latest.md");
  writeFileSync(jsonPath, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(markdownPath, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return { jsonPath, markdownPath };
}

// ---- Markdown helpers ----

/** A GitHub-flavoured Markdown table; `align` is "l" or "r" per column. */
export function table(headers: string[], rows: (string | number)[][], align: ("l" | "r")[] = []): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? "").length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, column) => (align[column] === "r" ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join(" | ")} |`;
  const rule = `| ${widths.map((width, column) => (align[column] === "r" ? `${"-".repeat(width - 1)}:` : "-".repeat(width))).join(" | ")} |`;
  return [line(headers), rule, ...cells.slice(1).map(line)].join("\n");
}

/** Bytes as kB (1 kB = 1,000 bytes) with one decimal. */
export function kB(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

export function integer(value: number): string {
  return Math.round(value).toLocaleString("en-GB");
}

export function ms(value: number): string {
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value at a quantile (0–1) of unsorted values, nearest rank (p99 of 100 values is the 99th smallest); NaN for none. */
export function percentile(values: number[], quantile: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(quantile * sorted.length) - 1)]!;
}

export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Latency figures of a set of timings, in ms rounded to two decimals (NaN for an empty set). */
export interface Latencies {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export function summariseLatencies(values: number[]): Latencies {
  return {
    p50: round(percentile(values, 0.5), 2),
    p90: round(percentile(values, 0.9), 2),
    p99: round(percentile(values, 0.99), 2),
    mean: round(mean(values), 2),
    max: round(values.length === 0 ? Number.NaN : values.reduce((max, value) => Math.max(max, value)), 2),
  };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
