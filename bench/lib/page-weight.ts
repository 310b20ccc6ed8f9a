import { gzipSync } from "node:zlib";

export type ResourceKind = "js" | "css";

/** How the page asks for a resource. */
export type ResourceSource =
  | "script-src" // <script src>
  | "modulepreload" // <link rel="modulepreload">
  | "inline-import" // an import in an inline <script type="module"> (React Router's boot script)
  | "static-import" // imported by another JS file on the page without being preloaded (a request waterfall)
  | "stylesheet"; // <link rel="stylesheet">

export interface Resource {
  /** Path and query on the shop's origin. */
  path: string;
  kind: ResourceKind;
  source: ResourceSource;
  rawBytes: number;
  gzipBytes: number;
}

export interface PageWeight {
  path: string;
  html: { rawBytes: number; gzipBytes: number };
  js: { files: number; rawBytes: number; gzipBytes: number };
  css: { files: number; rawBytes: number; gzipBytes: number };
  resources: Resource[];
  /** Scripts or stylesheets on other origins (the CSP forbids them: there should be none); not fetched. */
  external: string[];
  /** JS that is imported statically by the page's JS but not preloaded by the HTML: each is an extra round trip. */
  notPreloaded: string[];
}

/** gzip at level 9, the figure the budget is stated in (the server's own on-the-fly gzip may be a little larger). */
export function gzipSize(content: Buffer | string): number {
  return gzipSync(content, { level: 9 }).length;
}

/**
 * Weighs one page as a browser's first visit would load it: the HTML, every JavaScript it loads
 * (script src, modulepreload, the inline boot script's imports, and any static import those pull in without a
 * preload) and its stylesheets. Each file is gzipped on its own, as it is served.
 */
export async function measurePageWeight(baseUrl: string, pagePath = "/"): Promise<PageWeight> {
  const pageUrl = new URL(pagePath, baseUrl);
  const html = await fetchBytes(pageUrl, "text/html");
  const htmlText = html.toString("utf8");

  const found = new Map<string, { kind: ResourceKind; source: ResourceSource }>();
  const external = new Set<string>();
  const add = (reference: string, kind: ResourceKind, source: ResourceSource, base: URL) => {
    const url = new URL(decodeEntities(reference), base);
    if (url.origin !== pageUrl.origin) {
      external.add(url.toString());
      return;
    }
    const key = url.pathname + url.search;
    if (!found.has(key)) found.set(key, { kind, source });
  };

  for (const tag of htmlText.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag[0], "src");
    if (src) add(src, "js", "script-src", pageUrl);
  }
  for (const tag of htmlText.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attribute(tag[0], "rel") ?? "").toLowerCase().split(/\s+/);
    const href = attribute(tag[0], "href");
    if (!href) continue;
    if (rel.includes("modulepreload")) add(href, "js", "modulepreload", pageUrl);
    else if (rel.includes("stylesheet")) add(href, "css", "stylesheet", pageUrl);
  }
  for (const script of htmlText.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const tag = `<script${script[1]}>`;
    if (attribute(tag, "src")) continue;
    const type = (attribute(tag, "type") ?? "").toLowerCase();
    // The shop holds its module script back until after the first paint (app/entry.server.tsx): the held script
    // lists its module preloads in data-preload, and its imports load just as a module script's would.
    const preloadList = attribute(tag, "data-preload");
    if (preloadList)
      for (const href of JSON.parse(decodeEntities(preloadList)) as string[]) add(href, "js", "modulepreload", pageUrl);
    if (type !== "module" && type !== "text/x-deferred-module") continue;
    for (const specifier of importSpecifiers(script[2] ?? "", { dynamic: true }))
      add(specifier, "js", "inline-import", pageUrl);
  }

  const preloaded = new Set(found.keys());
  const resources: Resource[] = [];
  const queue = [...found.keys()];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const key = queue.shift()!;
    const entry = found.get(key)!;
    const url = new URL(key, pageUrl);
    const body = await fetchBytes(url, entry.kind === "js" ? "javascript" : "css");
    resources.push({
      path: key,
      kind: entry.kind,
      source: entry.source,
      rawBytes: body.length,
      gzipBytes: gzipSize(body),
    });
    if (entry.kind !== "js") continue;
    // Static imports load with the page; dynamic import() does not (it is lazy), so it is not followed here.
    for (const specifier of importSpecifiers(body.toString("utf8"), { dynamic: false })) {
      const target = new URL(specifier, url);
      if (target.origin !== pageUrl.origin) {
        external.add(target.toString());
        continue;
      }
      const targetKey = target.pathname + target.search;
      if (seen.has(targetKey)) continue;
      seen.add(targetKey);
      found.set(targetKey, { kind: "js", source: "static-import" });
      queue.push(targetKey);
    }
  }

  const sum = (kind: ResourceKind) => {
    const files = resources.filter((resource) => resource.kind === kind);
    return {
      files: files.length,
      rawBytes: files.reduce((total, file) => total + file.rawBytes, 0),
      gzipBytes: files.reduce((total, file) => total + file.gzipBytes, 0),
    };
  };
  return {
    path: pagePath,
    html: { rawBytes: html.length, gzipBytes: gzipSize(html) },
    js: sum("js"),
    css: sum("css"),
    resources,
    external: [...external],
    notPreloaded: [...found.keys()].filter((key) => found.get(key)!.kind === "js" && !preloaded.has(key)),
  };
}

async function fetchBytes(url: URL, expectedType: string): Promise<Buffer> {
  // Node's fetch decompresses transparently, so these are the raw bytes whatever the server's encoding.
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000), headers: { "accept-encoding": "gzip" } });
  if (!response.ok) throw new Error(`GET ${url.pathname}${url.search} answered ${response.status}`);
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes(expectedType))
    throw new Error(`GET ${url.pathname}${url.search} is "${type}", expected ${expectedType}`);
  return Buffer.from(await response.arrayBuffer());
}

/** The value of one attribute of an HTML start tag, or undefined. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'");
}

/**
 * Module specifiers of `import ... from "x"`, `import "x"`, `export ... from "x"` (and `import("x")` when `dynamic`),
 * limited to paths (./, ../, /) ending in .js or .mjs, which is all a Vite build emits for its own chunks.
 */
function importSpecifiers(source: string, { dynamic }: { dynamic: boolean }): string[] {
  const path = String.raw`["'\x60]((?:\.\.?\/|\/)[^"'\x60\s]+?\.m?js(?:\?[^"'\x60\s]*)?)["'\x60]`;
  const patterns = [
    new RegExp(String.raw`\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?${path}`, "g"),
    new RegExp(String.raw`\bexport\s*(?:\*|\{[^}]*\})\s*(?:as\s+[\w$]+\s*)?from\s*${path}`, "g"),
  ];
  if (dynamic) patterns.push(new RegExp(String.raw`\bimport\s*\(\s*${path}\s*\)`, "g"));
  const specifiers: string[] = [];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) if (match[1]) specifiers.push(match[1]);
  return specifiers;
}
