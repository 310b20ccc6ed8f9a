import { spawnSync } from "node:child_process";
import path from "node:path";
import {
  medianRun,
  runLighthouse,
  type Category,
  type FailingAudit,
  type LighthouseFigures,
} from "../lib/lighthouse.ts";
import { cpuBusyPercent, kB, ms, table } from "../lib/report.ts";
import type { Scenario } from "../lib/scenario.ts";
import { addToBasket, BENCH_PRODUCT, findPaymentConfig, payForBasket, timedFetch } from "../lib/shop-client.ts";
import { JS_BUDGET_BYTES } from "./page-weight.ts";

/**
 * The pages Lighthouse loads, one after the other. The home page, a product page, a search, a department and the login page as a
 * first-time visitor (no cookie), as a shopper arriving from a search engine or a shared link sees them; the others as
 * a shopper with a basket of 2 items and one paid order (its cookie sent with every request, Lighthouse's
 * extraHeaders), so that they show what a shopper on the way to paying sees rather than an empty state.
 */
export const LIGHTHOUSE_PAGES = [
  { path: "/", asShopper: false },
  { path: "/products/the-lean-startup", asShopper: false },
  // A word several of the seeded products share, so that the page shows a list of results rather than "no results".
  { path: "/search?q=monitor", asShopper: false },
  // A department with sub-departments: the listing page with its filters sidebar.
  { path: "/departments/computers", asShopper: false },
  { path: "/login", asShopper: false },
  { path: "/checkout", asShopper: true },
  { path: "/payment", asShopper: true },
  { path: "/orders", asShopper: true },
] as const;

/** The team's targets for every page (mobile, Lighthouse's default simulated throttling). */
export const PAGE_TARGETS = {
  performance: 100,
  accessibility: 100,
  /** LCP strictly under this, in milliseconds. */
  lcpMs: 1_200,
  /** CLS exactly this. */
  cls: 0,
  /** Gzipped JavaScript the home page downloads, at most (the same budget as the page-weight scenario). */
  homeJsGzipBytes: JS_BUDGET_BYTES,
} as const;

/** Seconds one Lighthouse run may take before it is abandoned (Chrome killed). */
const LIGHTHOUSE_TIMEOUT_S = 180;

export interface PageTarget {
  name: string;
  pass: boolean;
  value: number | null;
  target: string;
}

export interface PageFigures {
  path: string;
  asShopper: boolean;
  /** CPU busy on the whole machine for 1 s just before this page's run (Lighthouse's timings depend on it). */
  cpuBusyBefore: number;
  /** The median run (medianRun) of this page's runs: the figures reported and judged. */
  lighthouse?: LighthouseFigures;
  /** Every run's headline figures, in order, the median one included. */
  runs?: {
    performance: number | null;
    lcpMs: number;
    tbtMs: number;
    cls: number;
    fcpMs: number;
    interactiveMs: number;
  }[];
  targets: PageTarget[];
  /** Set instead of `lighthouse` when the run failed. */
  error?: string;
}

export interface PagesResult {
  /** The shopper used for /checkout, /payment and /orders (its cookie is not kept). */
  shopper: { basketItems: number; paidOrders: number };
  /** The installed fonts that have ⭐ (the ratings' emoji), by fontconfig; empty: none (or no fontconfig). */
  emojiFonts: string[];
  pages: PageFigures[];
}

/**
 * Every phone has an emoji font; a bare Linux machine may not. Without one, Chromium searches all fonts for ⭐ on
 * every page (measured here: text shaping 13–17 ms against 7–8 ms with Debian's fonts-noto-color-emoji, at 1× CPU,
 * so about 4× that under Lighthouse's slowdown) and draws boxes. The report says which case it measured.
 */
function emojiFonts(): string[] {
  const listed = spawnSync("fc-list", [":charset=2b50", "family"], { encoding: "utf8" });
  return listed.status === 0
    ? [
        ...new Set(
          listed.stdout
            .split("\n")
            .map((line) => line.trim())
            .filter(Boolean),
        ),
      ]
    : [];
}

export const pagesScenario: Scenario<PagesResult> = {
  name: "pages",
  title: "Pages (Lighthouse, mobile)",
  scope: "once",
  // Page figures do not depend on the database; PGlite is the server that is always there.
  databases: ["pglite"],
  // Not load, but it takes time: about 15–40 s a page on a 2-core machine, Chrome start included.
  plannedSeconds: (settings) => LIGHTHOUSE_PAGES.length * 40 * settings.lighthouseRuns,

  async run({ server, settings, log }) {
    log(`${server.label}: a shopper with one paid order and 2 items in the basket, for the shopper's pages`);
    const payment = await findPaymentConfig(server.baseUrl);
    const first = await addToBasket(server.baseUrl, undefined);
    const cookie = first.cookie;
    await payForBasket(server.baseUrl, cookie, payment, first.basket.subtotalCents);
    await addToBasket(server.baseUrl, cookie, BENCH_PRODUCT.id);
    const second = await addToBasket(server.baseUrl, cookie, BENCH_PRODUCT.id);
    if (second.basket.count !== 2)
      throw new Error(`the shopper's basket holds ${second.basket.count} items, expected 2`);
    const orders = await timedFetch(`${server.baseUrl}/orders`, { headers: { accept: "text/html", cookie } });
    const paidOrders = (orders.body.match(/data-testid="order"/g) ?? []).length;
    if (orders.status !== 200 || paidOrders !== 1)
      throw new Error(`GET /orders as the shopper: HTTP ${orders.status} with ${paidOrders} orders, expected 1`);

    const pages: PageFigures[] = [];
    for (const page of LIGHTHOUSE_PAGES) {
      const cpuBusyBefore = await cpuBusyPercent(1_000);
      log(
        `${server.label}: Lighthouse ${page.path}${page.asShopper ? " (as the shopper)" : ""}, ${settings.lighthouseRuns} run(s) ` +
          `(CPU ${cpuBusyBefore}% busy before)`,
      );
      try {
        const reportName = `lighthouse-${page.path === "/" ? "home" : page.path.slice(1).replace(/\W+/g, "-")}`;
        const audit = (run: number) =>
          runLighthouse(`${server.baseUrl}${page.path}`, {
            extraHeaders: page.asShopper ? { cookie } : undefined,
            timeoutMs: LIGHTHOUSE_TIMEOUT_S * 1000,
            saveReportAs: settings.lighthouseReportsDir
              ? path.join(settings.lighthouseReportsDir, `${reportName}-${run}`)
              : undefined,
          });
        const runs: LighthouseFigures[] = [];
        for (let run = 1; run <= settings.lighthouseRuns; run += 1) {
          let retried: string | undefined;
          const one = await audit(run).catch((error: unknown) => {
            // Lighthouse's own hiccups (NO_NAVSTART, "please run Lighthouse again") happen on a busy machine: one more try.
            retried = error instanceof Error ? error.message : String(error);
            log(`  Lighthouse failed (${retried}); trying once more`);
            return audit(run);
          });
          if (retried) one.runWarnings.push(`run ${run} failed and was repeated: ${retried}`);
          log(
            `  run ${run}: performance ${one.scores.performance ?? "?"}, LCP ${ms(one.lcpMs)}, TBT ${ms(one.tbtMs)}, CLS ${one.cls}`,
          );
          runs.push(one);
        }
        const figures = medianRun(runs);
        const finalUrl = new URL(figures.finalUrl);
        if (`${finalUrl.pathname}${finalUrl.search}` !== page.path) {
          figures.runWarnings.push(`Lighthouse ended on ${figures.finalUrl}, not ${page.path} (a redirect?)`);
        }
        const targets = targetsFor(page.path, figures);
        pages.push({
          path: page.path,
          asShopper: page.asShopper,
          cpuBusyBefore,
          lighthouse: figures,
          runs: runs.map((run) => ({
            performance: run.scores.performance,
            lcpMs: run.lcpMs,
            tbtMs: run.tbtMs,
            cls: run.cls,
            fcpMs: run.fcpMs,
            interactiveMs: run.interactiveMs,
          })),
          targets,
        });
        const failing = Object.values(figures.failing).flat().length;
        log(
          `  ${figures.seconds} s: ${Object.entries(figures.scores)
            .map(([category, score]) => `${category} ${score ?? "?"}`)
            .join(", ")}; ` +
            `LCP ${ms(figures.lcpMs)}, TBT ${ms(figures.tbtMs)}, CLS ${figures.cls}; JS ${kB(figures.js.gzipBytes)} gzip; ${failing} failing audits`,
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`  FAILED: ${message}`);
        pages.push({ path: page.path, asShopper: page.asShopper, cpuBusyBefore, targets: [], error: message });
      }
    }
    if (pages.every((page) => page.error))
      throw new Error(`Lighthouse failed on every page (first: ${pages[0]?.error})`);
    return { shopper: { basketItems: second.basket.count, paidOrders }, emojiFonts: emojiFonts(), pages };
  },

  missedTargets(result) {
    return result.pages.flatMap((page) =>
      page.error
        ? [`${page.path}: Lighthouse failed`]
        : page.targets
            .filter((target) => !target.pass)
            .map((target) => `${page.path}: ${target.name} ${formatValue(target)} (target ${target.target})`),
    );
  },

  render(measurements) {
    const measured = measurements.find((measurement) => measurement.result);
    if (!measured?.result) return `Not measured: ${measurements[0]?.error ?? "no PGlite server in this run"}`;
    const { pages } = measured.result;
    const ok = pages.filter(
      (page): page is PageFigures & { lighthouse: LighthouseFigures } => page.lighthouse !== undefined,
    );
    const score = (figures: LighthouseFigures, category: Category) => String(figures.scores[category] ?? "?");
    const figures = table(
      [
        "Page",
        "Perf.",
        "A11y",
        "Best pr.",
        "SEO",
        "LCP",
        "TBT",
        "CLS",
        "JS gzip (files)",
        "HTML gzip",
        "Transferred (requests)",
        "CPU busy before",
      ],
      pages.map(({ path, asShopper, lighthouse: lh, cpuBusyBefore }) =>
        lh
          ? [
              `\`${path}\`${asShopper ? " (shopper)" : ""}`,
              score(lh, "performance"),
              score(lh, "accessibility"),
              score(lh, "best-practices"),
              score(lh, "seo"),
              seconds(lh.lcpMs),
              ms(lh.tbtMs),
              lh.cls.toFixed(3),
              `${kB(lh.js.gzipBytes)} (${lh.js.files})`,
              kB(lh.html.gzipBytes),
              `${kB(lh.total.transferBytes)} (${lh.total.requests})`,
              `${cpuBusyBefore}%`,
            ]
          : [`\`${path}\``, "(failed)", "", "", "", "", "", "", "", "", "", `${cpuBusyBefore}%`],
      ),
      ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
    );
    const targetNames = ["performance", "accessibility", "LCP", "CLS", "JS gzip"];
    const targets = table(
      [
        "Page",
        "Performance = 100",
        "Accessibility = 100",
        "LCP < 1.2 s",
        "CLS = 0",
        `JS ≤ ${kB(PAGE_TARGETS.homeJsGzipBytes)} gzip (/ only)`,
      ],
      ok.map((page) => [
        `\`${page.path}\``,
        ...targetNames.map((name) => {
          const target = page.targets.find((candidate) => candidate.name === name);
          return target ? `${target.pass ? "PASS" : "**FAIL**"} (${formatValue(target)})` : "";
        }),
      ]),
      ["l", "l", "l", "l", "l", "l"],
    );
    const audits: string[] = [];
    const hints: string[] = [];
    for (const page of ok) {
      const lines: string[] = [];
      for (const category of ["accessibility", "best-practices", "seo"] as const) {
        for (const audit of page.lighthouse.failing[category]) lines.push(`  - ${category}: ${describeAudit(audit)}`);
      }
      for (const audit of page.lighthouse.errored)
        lines.push(`  - could not run: \`${audit.id}\` (${audit.title}): ${audit.message}`);
      audits.push(lines.length > 0 ? `- \`${page.path}\`:\n${lines.join("\n")}` : `- \`${page.path}\`: none`);
      const { lcpElement, performanceHints } = page.lighthouse;
      hints.push(
        `- \`${page.path}\`: ${performanceHints.map((hint) => `\`${hint.id}\`${hint.displayValue ? ` (${hint.displayValue})` : ""}`).join(", ") || "none"}` +
          (lcpElement
            ? `; LCP element: \`${lcpElement.length > 140 ? `${lcpElement.slice(0, 140)}…` : lcpElement}\``
            : ""),
      );
    }
    const warnings: string[] = [];
    for (const page of pages) {
      if (page.error) warnings.push(`${page.path}: ${page.error}`);
      if (page.lighthouse?.external.length)
        warnings.push(`${page.path} requested other hosts: ${page.lighthouse.external.join(", ")}`);
      for (const warning of page.lighthouse?.runWarnings ?? []) warnings.push(`${page.path}: Lighthouse: ${warning}`);
    }
    const fonts = measurements.find((measurement) => measurement.result)?.result?.emojiFonts;
    if (fonts && fonts.length === 0) {
      warnings.push(
        "no font on this machine has ⭐ (the ratings' emoji): Chromium searched every font for it on each page, which costs " +
          "main-thread time a phone (which has an emoji font) does not spend, and drew boxes. Install one: apt-get install fonts-noto-color-emoji.",
      );
    }
    const benchmark = ok.map((page) => page.lighthouse.benchmarkIndex);
    const how =
      `Lighthouse ${ok[0]?.lighthouse.lighthouseVersion ?? ""} on ${measured.databaseLabel}, production build, ${ok[0]?.runs?.length ?? "?"} runs per page ` +
      "(BENCH_LIGHTHOUSE_RUNS), one page at a time; each page's figures are those of its median run, chosen as Lighthouse's own " +
      "computeMedianRun does (nearest the median FCP and TTI), and every run's performance, LCP and TBT are listed below the table; " +
      "in headless Chromium (offline: only 127.0.0.1), mobile form factor with Lighthouse's default simulated throttling " +
      "(150 ms RTT, 1.6 Mbit/s, 4× CPU slowdown). `/`, the product page, the search and `/login` as a first-time visitor; the others as a shopper with 2 items " +
      "in the basket and one paid order (cookie in Lighthouse's extra headers). JS and HTML: what the page downloaded during the " +
      "load, gzip -9 per file (as the page-weight budget); Transferred: all requests as Chrome received them. " +
      `Emoji font for the ratings' ⭐: ${fonts === undefined ? "?" : fonts.length > 0 ? fonts.join(", ") : "none (see the warning below)"}. ` +
      `Lighthouse's CPU benchmark index on this machine: ${benchmark.length > 0 ? `${Math.min(...benchmark)}–${Math.max(...benchmark)}` : "?"} ` +
      "(performance scores and TBT depend on it and on how busy the machine is: compare runs with care).";
    const runLines = ok
      .filter((page) => (page.runs?.length ?? 0) > 1)
      .map((page) => {
        const runs = page.runs!;
        const median = runs.findIndex(
          (run) => run.fcpMs === page.lighthouse.fcpMs && run.interactiveMs === page.lighthouse.interactiveMs,
        );
        return (
          `- \`${page.path}\`: performance ${runs.map((run) => run.performance ?? "?").join(" / ")}; ` +
          `LCP ${runs.map((run) => seconds(run.lcpMs)).join(" / ")}; TBT ${runs.map((run) => ms(run.tbtMs)).join(" / ")} (median run: ${median + 1})`
        );
      });
    return [
      how,
      "",
      figures,
      ...(runLines.length > 0 ? ["", "Every run, in order (the table shows the median run):", "", ...runLines] : []),
      "",
      "Targets:",
      "",
      targets,
      "",
      "Failing accessibility, best-practice and SEO audits (ids and titles; the offending elements are in the JSON):",
      "",
      ...audits,
      "",
      "Where the time goes (performance insights and diagnostics that do not pass; not scored themselves):",
      "",
      ...hints,
      ...(warnings.length > 0 ? ["", ...warnings.map((warning) => `⚠️ ${warning}`)] : []),
    ].join("\n");
  },
};

function targetsFor(path: string, figures: LighthouseFigures): PageTarget[] {
  const targets: PageTarget[] = [
    {
      name: "performance",
      value: figures.scores.performance,
      target: `= ${PAGE_TARGETS.performance}`,
      pass: figures.scores.performance === PAGE_TARGETS.performance,
    },
    {
      name: "accessibility",
      value: figures.scores.accessibility,
      target: `= ${PAGE_TARGETS.accessibility}`,
      pass: figures.scores.accessibility === PAGE_TARGETS.accessibility,
    },
    {
      name: "LCP",
      value: figures.lcpMs,
      target: `< ${seconds(PAGE_TARGETS.lcpMs)}`,
      pass: figures.lcpMs < PAGE_TARGETS.lcpMs,
    },
    { name: "CLS", value: figures.cls, target: `= ${PAGE_TARGETS.cls}`, pass: figures.cls === PAGE_TARGETS.cls },
  ];
  if (path === "/") {
    targets.push({
      name: "JS gzip",
      value: figures.js.gzipBytes,
      target: `≤ ${kB(PAGE_TARGETS.homeJsGzipBytes)}`,
      pass: figures.js.gzipBytes <= PAGE_TARGETS.homeJsGzipBytes,
    });
  }
  return targets;
}

function formatValue(target: PageTarget): string {
  if (target.value === null) return "?";
  if (target.name === "LCP") return seconds(target.value);
  if (target.name === "CLS") return target.value.toFixed(3);
  if (target.name === "JS gzip") return kB(target.value);
  return String(target.value);
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

function describeAudit(audit: FailingAudit): string {
  return `\`${audit.id}\` ${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ""}${audit.weight === 0 ? " [not scored]" : ""}`;
}
