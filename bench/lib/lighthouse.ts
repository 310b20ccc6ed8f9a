import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { deferCleanup, onExitSyncCleanup, withTimeout } from "./cleanup.ts";
import { median, round } from "./report.ts";

/**
 * Lighthouse against one of the bench's own servers, fully offline: the local Chromium (CHROME_PATH, default
 * /usr/bin/chromium), headless, with background networking and component updates off, so that neither Chrome nor
 * Lighthouse reaches for anything but 127.0.0.1. Lighthouse's defaults otherwise: mobile form factor and screen,
 * simulated throttling (150 ms RTT, 1.6 Mbit/s, 4× CPU slowdown), storage and cache cleared before the load.
 */

export const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/** The four categories the bench scores (PWA is gone from Lighthouse 12 on). */
export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
export type Category = (typeof CATEGORIES)[number];

/** One audit that did not pass, as the team needs it to fix it. */
export interface FailingAudit {
  id: string;
  title: string;
  /** 0–1 (binary audits: 0). */
  score: number | null;
  /** Weight in its category's score (0: shown but not scored). */
  weight: number;
  displayValue?: string;
  /** A few of the offending elements or resources (selector, snippet or URL), when Lighthouse names them. */
  examples: string[];
}

/** An audit that could not run (Lighthouse's scoreDisplayMode "error"): neither passed nor failed. */
export interface ErroredAudit {
  id: string;
  title: string;
  message: string;
}

export interface RequestWeight {
  url: string;
  /** Lighthouse's resource type: Document, Script, Stylesheet, Image, Fetch, Other... */
  type: string;
  status: number;
  /** Bytes on the wire as Chrome received them (headers included; whatever encoding the server chose). */
  transferBytes: number;
  /** Decoded size. */
  rawBytes: number;
  /** gzip -9 of the body, each file on its own (documents and scripts only; the figure the JS budget is stated in). */
  gzipBytes?: number;
}

export interface LighthouseFigures {
  url: string;
  /** The URL Lighthouse ended on (a redirect, e.g. to /login, would show here). */
  finalUrl: string;
  /** Category scores, 0–100. */
  scores: Record<Category, number | null>;
  /** Milliseconds (simulated mobile). */
  lcpMs: number;
  fcpMs: number;
  tbtMs: number;
  speedIndexMs: number;
  /** Time to interactive: with FCP, what Lighthouse's own median-run choice compares (see medianRun). */
  interactiveMs: number;
  cls: number;
  /** Everything the page downloaded during the load, per request. */
  requests: RequestWeight[];
  html: { files: number; transferBytes: number; rawBytes: number; gzipBytes: number };
  js: { files: number; transferBytes: number; rawBytes: number; gzipBytes: number };
  /** All requests, all types. */
  total: { requests: number; transferBytes: number };
  /** Requests to any host other than the page's own (there should be none: the bench is offline). */
  external: string[];
  /** Failing audits per category (accessibility and best-practices are what the targets need; SEO comes for free). */
  failing: Record<"accessibility" | "best-practices" | "seo", FailingAudit[]>;
  errored: ErroredAudit[];
  /** The element whose paint is the LCP (selector and snippet), when Lighthouse names it. */
  lcpElement?: string;
  /**
   * Performance insights and diagnostics that do not pass (not scored themselves, but they say where the time goes):
   * e.g. render-blocking-insight, unused-javascript, bootup-time.
   */
  performanceHints: { id: string; title: string; displayValue?: string }[];
  /** Lighthouse's own warnings about the run (e.g. a slow host) and its runtime error, if any. */
  runWarnings: string[];
  runtimeError?: string;
  /** Lighthouse's estimate of the machine's CPU speed (a mid-range 2020s desktop scores ~1,500–2,500). */
  benchmarkIndex: number;
  lighthouseVersion: string;
  /** Wall-clock seconds this run took. */
  seconds: number;
}

export interface LighthouseOptions {
  /** Headers sent with every request of the page, e.g. `{ cookie: "sf_session=…" }` (Lighthouse's extraHeaders). */
  extraHeaders?: Record<string, string>;
  /** Gives up (and kills Chrome) after this long. */
  timeoutMs?: number;
  /** Also write Lighthouse's full report here: `<saveReportAs>.html` and `<saveReportAs>.json` (the whole LHR). */
  saveReportAs?: string;
}

/** Runs Lighthouse once on `url` in a Chrome of its own, started for this run and killed after it. */
export async function runLighthouse(
  url: string,
  { extraHeaders, timeoutMs = 180_000, saveReportAs }: LighthouseOptions = {},
): Promise<LighthouseFigures> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url))
    throw new Error(`refusing to audit a non-local URL: ${url}`);
  const started = performance.now();
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    chromeFlags: CHROME_FLAGS,
    // The bench's own handlers clean up on Ctrl-C; chrome-launcher's would race with them.
    handleSIGINT: false,
    logLevel: "silent",
  });
  // chrome-launcher starts Chrome in a process group of its own and kill() SIGKILLs that group, by its id.
  const unregisterExitKill = onExitSyncCleanup(() => chrome.kill());
  const killNow = deferCleanup(`kill Chrome (pid ${chrome.pid})`, () => chrome.kill());
  try {
    const runnerResult = await withTimeout(
      lighthouse(url, {
        port: chrome.port,
        logLevel: "error",
        output: "html",
        onlyCategories: [...CATEGORIES],
        extraHeaders: extraHeaders ?? null,
      }),
      timeoutMs,
      `Lighthouse on ${url}`,
    );
    if (!runnerResult) throw new Error(`Lighthouse returned nothing for ${url}`);
    if (saveReportAs) {
      mkdirSync(path.dirname(saveReportAs), { recursive: true });
      writeFileSync(`${saveReportAs}.html`, String(runnerResult.report));
      writeFileSync(`${saveReportAs}.json`, JSON.stringify(runnerResult.lhr));
    }
    return summarise(url, runnerResult.lhr, runnerResult.artifacts, (performance.now() - started) / 1000);
  } finally {
    await killNow();
    unregisterExitKill();
  }
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"];
type Artifacts = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["artifacts"];
type AuditResult = Lhr["audits"][string];

/** Score modes in which a score below 1 means "failed"; informative, manual and notApplicable audits never fail. */
const SCORED_MODES = new Set(["binary", "numeric", "metricSavings"]);

function summarise(url: string, lhr: Lhr, artifacts: Artifacts, seconds: number): LighthouseFigures {
  if (lhr.runtimeError)
    throw new Error(`Lighthouse could not load ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const audit = (id: string): AuditResult | undefined => lhr.audits[id];
  const numeric = (id: string) => round(audit(id)?.numericValue ?? Number.NaN, 3);
  const scores = Object.fromEntries(
    CATEGORIES.map((category) => {
      const score = lhr.categories[category]?.score;
      return [category, score === null || score === undefined ? null : Math.round(score * 100)];
    }),
  ) as Record<Category, number | null>;

  // Bodies Lighthouse already holds: every script it saw (external ones by URL) and the main document.
  const bodies = new Map<string, string>();
  for (const script of artifacts.Scripts ?? []) {
    if (script.url && typeof script.content === "string" && !bodies.has(script.url))
      bodies.set(script.url, script.content);
  }
  const documentContent = artifacts.MainDocumentContent;

  const origin = new URL(lhr.finalDisplayedUrl || url).origin;
  const items = (audit("network-requests")?.details as { items?: Record<string, unknown>[] } | undefined)?.items ?? [];
  const requests: RequestWeight[] = items.map((item) => {
    const requestUrl = String(item.url);
    const type = String(item.resourceType ?? "Other");
    const weight: RequestWeight = {
      url: requestUrl,
      type,
      status: Number(item.statusCode ?? 0),
      transferBytes: Number(item.transferSize ?? 0),
      rawBytes: Number(item.resourceSize ?? 0),
    };
    const body =
      type === "Document" && sameUrl(requestUrl, lhr.mainDocumentUrl ?? url)
        ? documentContent
        : type === "Script"
          ? bodies.get(requestUrl)
          : undefined;
    if (typeof body === "string") weight.gzipBytes = gzipSync(body, { level: 9 }).length;
    return weight;
  });
  const sum = (type: string) => {
    const files = requests.filter((request) => request.type === type && new URL(request.url).origin === origin);
    return {
      files: files.length,
      transferBytes: files.reduce((total, file) => total + file.transferBytes, 0),
      rawBytes: files.reduce((total, file) => total + file.rawBytes, 0),
      gzipBytes: files.reduce((total, file) => total + (file.gzipBytes ?? 0), 0),
    };
  };
  const html = sum("Document");
  const js = sum("Script");
  const missingBodies = requests.filter(
    (request) => (request.type === "Script" || request.type === "Document") && request.gzipBytes === undefined,
  );

  const failingIn = (category: "accessibility" | "best-practices" | "seo"): FailingAudit[] =>
    (lhr.categories[category]?.auditRefs ?? []).flatMap((ref) => {
      const result = audit(ref.id);
      if (!result || !SCORED_MODES.has(result.scoreDisplayMode) || result.score === null || result.score >= 1)
        return [];
      return [
        {
          id: ref.id,
          title: result.title,
          score: result.score,
          weight: ref.weight,
          ...(result.displayValue ? { displayValue: result.displayValue } : {}),
          examples: examplesOf(result),
        },
      ];
    });
  const performanceHints = (lhr.categories.performance?.auditRefs ?? []).flatMap((ref) => {
    const result = audit(ref.id);
    if (
      ref.weight > 0 ||
      !result ||
      !SCORED_MODES.has(result.scoreDisplayMode) ||
      result.score === null ||
      result.score >= 1
    )
      return [];
    return [{ id: ref.id, title: result.title, ...(result.displayValue ? { displayValue: result.displayValue } : {}) }];
  });
  const lcpNode = (
    (
      audit("lcp-breakdown-insight")?.details as
        { items?: { type?: string; selector?: string; snippet?: string }[] } | undefined
    )?.items ?? []
  ).find((item) => item.type === "node");
  const errored: ErroredAudit[] = Object.values(lhr.audits)
    .filter((result) => result.scoreDisplayMode === "error")
    .map((result) => ({ id: result.id, title: result.title, message: result.errorMessage ?? "" }));

  const runWarnings = (lhr.runWarnings ?? []).map(String);
  if (missingBodies.length > 0) {
    runWarnings.push(
      `no body for gzip: ${missingBodies.map((request) => request.url).join(", ")} (their gzip size is not counted)`,
    );
  }
  return {
    url,
    finalUrl: lhr.finalDisplayedUrl,
    scores,
    lcpMs: numeric("largest-contentful-paint"),
    fcpMs: numeric("first-contentful-paint"),
    tbtMs: numeric("total-blocking-time"),
    speedIndexMs: numeric("speed-index"),
    interactiveMs: numeric("interactive"),
    cls: numeric("cumulative-layout-shift"),
    requests,
    html,
    js,
    total: {
      requests: requests.length,
      transferBytes: requests.reduce((total, request) => total + request.transferBytes, 0),
    },
    external: requests
      .filter((request) => !/^(data|blob):/.test(request.url) && new URL(request.url).origin !== origin)
      .map((request) => request.url),
    failing: {
      accessibility: failingIn("accessibility"),
      "best-practices": failingIn("best-practices"),
      seo: failingIn("seo"),
    },
    errored,
    ...(lcpNode ? { lcpElement: `${lcpNode.selector ?? ""} ${lcpNode.snippet ?? ""}`.trim() } : {}),
    performanceHints,
    runWarnings,
    benchmarkIndex: Math.round(lhr.environment?.benchmarkIndex ?? Number.NaN),
    lighthouseVersion: lhr.lighthouseVersion,
    seconds: round(seconds, 1),
  };
}

/** Up to three offending elements (selector and snippet) or resources (URL) from an audit's details. */
function examplesOf(result: AuditResult): string[] {
  const items = (result.details as { items?: Record<string, unknown>[] } | undefined)?.items ?? [];
  const examples: string[] = [];
  for (const item of items) {
    if (examples.length >= 3) break;
    const node = item.node as { selector?: string; snippet?: string; explanation?: string } | undefined;
    if (node?.snippet || node?.selector) {
      const snippet = (node.snippet ?? "").replace(/\s+/g, " ");
      examples.push(`${node.selector ?? ""} ${snippet.length > 160 ? `${snippet.slice(0, 160)}…` : snippet}`.trim());
    } else if (typeof item.url === "string") examples.push(item.url);
    else if (typeof (item.source as { url?: unknown } | undefined)?.url === "string") {
      const source = item.source as { url: string; line?: number };
      examples.push(`${source.url}${source.line !== undefined ? `, line ${source.line + 1}` : ""}`);
    } else if (typeof item.description === "string") examples.push(item.description.slice(0, 200));
    else if (typeof item.reason === "string") examples.push(item.reason.slice(0, 200));
  }
  return examples;
}

function sameUrl(a: string, b: string): boolean {
  try {
    const left = new URL(a);
    const right = new URL(b);
    return left.origin === right.origin && left.pathname === right.pathname && left.search === right.search;
  } catch {
    return a === b;
  }
}

/**
 * The run to report out of several of one page, chosen as Lighthouse's own `computeMedianRun` does
 * (lighthouse/core/lib/median-run.js, the method its variability guide recommends): the run nearest the median
 * first contentful paint and the median time to interactive, ties to the earlier interactive. One whole run, so its
 * figures belong together, rather than medians taken figure by figure.
 */
export function medianRun(runs: readonly LighthouseFigures[]): LighthouseFigures {
  if (runs.length === 0) throw new Error("no Lighthouse runs to choose from");
  const fcp = median(runs.map((run) => run.fcpMs));
  const interactive = median(runs.map((run) => run.interactiveMs));
  const distance = (run: LighthouseFigures) => (fcp - run.fcpMs) ** 2 + (interactive - run.interactiveMs) ** 2;
  return [...runs].sort((a, b) => distance(a) - distance(b) || a.interactiveMs - b.interactiveMs)[0]!;
}
