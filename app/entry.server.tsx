// Rendering a page on the server: to completion before the first byte, with the CSP nonce, the inlined stylesheet and
// the scripts held back until after the first paint.

import { Writable } from "node:stream";
import { isRouteErrorResponse, ServerRouter, type EntryContext, type RouterContextProvider } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { bytesResponse, requestContext } from "./context";
import { ServerDocumentProvider, type KeptHtmlKeeper, type KeptPart } from "./components/server-document";
import stylesheet from "./styles/app.css?inline";
import { decodeHtmlEntities } from "#shared/html-entities";

export const streamTimeout = 5_000;

/**
 * Errors thrown by loaders and actions. The page still renders its error boundary ("please try again"); a database
 * outage is noted so the server answers 503 with Retry-After instead of 500. Everything is logged with the request id.
 * A client's mistake (React Router's 4xx: a POST to a page without an action, an unknown address) is not the
 * server's error: one info line with its status, no stack; the request's own log line already counts it.
 */
export function handleError(
  error: unknown,
  { request, context }: { request: Request; context: RouterContextProvider },
) {
  if (request.signal.aborted) return;
  const { services, requestId, outage, isDatabaseUnavailable } = context.get(requestContext);
  if (isRouteErrorResponse(error) && error.status < 500) {
    services.logger.info({ requestId, status: error.status, statusText: error.statusText }, "page: client error");
    return;
  }
  if (isDatabaseUnavailable(error)) {
    outage.isDatabaseUnavailable = true;
    services.logger.warn({ requestId, err: error }, "page: database unavailable");
    return;
  }
  services.logger.error({ requestId, err: error }, "page: unhandled error");
}

/**
 * Renders a page to HTML. Every page waits for all its content (no streamed fallbacks), so the first
 * byte already holds every title and price; the inline scripts carry this response's CSP nonce.
 */
export default function handleRequest(
  request: Request,
  status: number,
  headers: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") return new Response(null, { status, headers });
  const { cspNonce } = loadContext.get(requestContext);
  const toKeep = new Map<string, { source: object; key: string }>();
  const keptHtml: KeptHtmlKeeper = {
    find(source, name, address) {
      const key = `${name}\n${address}`;
      const kept = keptParts.get(source)?.get(key);
      if (!kept) toKeep.set(name, { source, key });
      return kept;
    },
  };

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <ServerDocumentProvider value={{ nonce: cspNonce, stylesheet, keptHtml }}>
        <ServerRouter context={routerContext} url={request.url} nonce={cspNonce} />
      </ServerDocumentProvider>,
      {
        nonce: cspNonce,
        onAllReady() {
          shellRendered = true;
          const chunks: Buffer[] = [];
          const collector = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
            final(callback) {
              clearTimeout(timeout);
              headers.set("Content-Type", "text/html; charset=utf-8");
              const page = Buffer.concat(chunks);
              if (status === 200 && toKeep.size > 0) keepParts(page, toKeep);
              resolve(bytesResponse(finishPage(page), { headers, status }));
              callback();
            },
          });
          pipe(collector);
        },
        onShellError: reject,
        onError(error) {
          status = 500;
          // Errors before the shell reject and are logged by the request handler; later ones only here.
          if (shellRendered) console.error(error);
        },
      },
    );
    const timeout = setTimeout(abort, streamTimeout + 1000);
  });
}

/** Kept parts' HTML (app/components/kept-html.tsx), by the data they were drawn from (and gone with it). */
const keptParts = new WeakMap<object, Map<string, KeptPart>>();
/** Addresses kept per part's data: the few a product or search is asked for at; past it, parts render as usual. */
const MAX_KEPT_PER_SOURCE = 32;

/** Keeps each part this render drew afresh, as the HTML between its wrapper's tags. */
function keepParts(page: Buffer, toKeep: ReadonlyMap<string, { source: object; key: string }>): void {
  // Read as latin1, as finishPage does: every tag looked for is ASCII. The part is stored decoded, as React writes it.
  const html = page.toString("latin1");
  for (const [name, { source, key }] of toKeep) {
    const inner = innerHtmlOf(html, `<div data-kept="${name}">`);
    if (inner === undefined) continue;
    let parts = keptParts.get(source);
    if (!parts) keptParts.set(source, (parts = new Map()));
    if (parts.size >= MAX_KEPT_PER_SOURCE) continue;
    const part = Buffer.from(inner, "latin1").toString("utf8");
    parts.set(key, { html: part, images: preloadedImages(part) });
  }
}

/**
 * The pictures React preloads from a part's <img> tags as it renders them (not lazy, not of low priority), in order,
 * as React wrote their attributes.
 */
function preloadedImages(html: string): KeptPart["images"] {
  const images: KeptPart["images"] = [];
  for (const [, attributes] of html.matchAll(/<img ([^>]*)>/g)) {
    const attribute = (name: string) => {
      const value = new RegExp(`(?:^| )${name}="([^"]*)"`).exec(attributes!)?.[1];
      return value === undefined ? undefined : decodeHtmlEntities(value);
    };
    const fetchPriority = attribute("fetchPriority");
    const src = attribute("src");
    if (!src || attribute("loading") === "lazy" || fetchPriority === "low") continue;
    const srcSet = attribute("srcSet");
    images.push({
      src,
      ...(srcSet ? { srcSet, sizes: attribute("sizes") } : {}),
      ...(fetchPriority === "high" || fetchPriority === "auto" ? { fetchPriority } : {}),
    });
  }
  return images;
}

/**
 * What lies between `start` and its matching </div>. React escapes "<" in text and attribute values, and a kept part
 * holds no inline script or style, so every "<div" and "</div>" in it is a tag.
 */
export function innerHtmlOf(html: string, start: string): string | undefined {
  const from = html.indexOf(start);
  if (from < 0 || html.indexOf(start, from + 1) >= 0) return undefined;
  const contentStart = from + start.length;
  let depth = 1;
  let at = contentStart;
  while (depth > 0) {
    const close = html.indexOf("</div>", at);
    if (close < 0) return undefined;
    const open = html.indexOf("<div", at);
    if (open >= 0 && open < close) {
      depth += 1;
      at = open + 4;
    } else {
      depth -= 1;
      at = close + 6;
    }
  }
  return html.slice(contentStart, at - 6);
}

/**
 * The rendered page as it is sent: its scripts held back (below), still as bytes. Only the stretch of the scripts is
 * read as text, one byte to a character (latin1), and written back the same way: every pattern it looks for is ASCII,
 * and UTF-8 never uses an ASCII byte inside a longer character, so it finds what it would in the decoded text and
 * leaves every other byte as it was. The rest of the page is copied once, as bytes: decoding the whole page and
 * encoding it again cost about 0.1 ms of CPU on the home page as UTF-8, and a fifth of that as latin1. A body of
 * bytes also spares the Response another check and encoding.
 */
export function finishPage(rendered: Buffer): Buffer<ArrayBuffer> {
  const stretch = scriptsStretch((text, from) => rendered.indexOf(text, from, "latin1"));
  if (!stretch) return Buffer.concat([rendered]);
  const [start, stop] = stretch;
  const scripts = rewriteScripts(rendered.toString("latin1", start, stop));
  return Buffer.concat([rendered.subarray(0, start), Buffer.from(scripts, "latin1"), rendered.subarray(stop)]);
}

/**
 * The page is whole and usable without JavaScript (every form posts), so the scripts that enhance it wait until
 * the first frame is painted: on a slow connection they no longer compete with the first paint and the largest
 * picture. React Router's <Scripts> has no option for this, so the finished HTML is rewritten: its module
 * preloads and its module script are held back and started by a small inline script after the next paint. If
 * the markup is not what this expects, the page is left as rendered (scripts load at once); tests check both.
 */
export function withScriptsAfterFirstPaint(html: string): string {
  const stretch = scriptsStretch((text, from) => html.indexOf(text, from));
  if (!stretch) return html;
  const [start, stop] = stretch;
  return html.slice(0, start) + rewriteScripts(html.slice(start, stop)) + html.slice(stop);
}

/**
 * Where the scripts <Scripts> writes lie, as [start, stop): at the end of the body, the module script after its
 * preloads, and the data React Router streams after them. The pattern work covers that stretch alone, not the top of
 * the page nor the data after it. Undefined when the page has no such stretch.
 */
function scriptsStretch(indexOf: (text: string, from?: number) => number): [number, number] | undefined {
  const start = indexOf(MODULE_PRELOAD_START);
  if (start < 0) return undefined;
  const moduleAt = indexOf(MODULE_SCRIPT_START, start);
  const end = moduleAt < 0 ? -1 : indexOf("</script>", moduleAt);
  return end < 0 ? undefined : [start, end + "</script>".length];
}

function rewriteScripts(html: string): string {
  // The preloads are taken out and their addresses collected in one pass.
  const hrefs: string[] = [];
  const withoutPreloads = html.replace(MODULE_PRELOAD, (_preload, href: string) => {
    hrefs.push(href);
    return "";
  });
  const modules = [...withoutPreloads.matchAll(MODULE_SCRIPT)];
  if (hrefs.length === 0 || modules.length !== 1) return html;
  const [moduleTag, nonce, moduleText] = modules[0]!;
  // The entry module hydrates the page when it runs, so it must come last, from the held module, as React Router
  // wrote it. Every other module only defines things and may run earlier, each in a task of its own.
  const entry = ENTRY_IMPORT.exec(moduleText ?? "")?.[1];
  const early = entry ? hrefs.filter((href) => href !== entry) : [];
  // Lists in data attributes as JSON: only hashed asset paths, so &quot; is the only escape.
  const attribute = (list: string[]) => JSON.stringify(list).replaceAll('"', "&quot;");
  return withoutPreloads.replace(
    moduleTag,
    () =>
      `<script nonce="${nonce}" type="text/x-deferred-module" id="deferred-module" data-preload="${attribute(hrefs)}" data-early="${attribute(early)}">${moduleText}</script>` +
      `<script nonce="${nonce}">${START_HELD_SCRIPTS}</script>`,
  );
}

const MODULE_PRELOAD_START = '<link rel="modulepreload"';
const MODULE_SCRIPT_START = 'type="module" async="">';
const MODULE_PRELOAD = /<link rel="modulepreload" href="([^"]+)"[^>]*\/>/g;
const MODULE_SCRIPT = /<script nonce="([^"]*)" type="module" async="">([\s\S]*?)<\/script>/g;
/** React Router's module script ends by importing the client entry, which hydrates. */
const ENTRY_IMPORT = /\bimport\("([^"]+)"\);?\s*$/;

/**
 * Starts the held module after the first frame is on screen (two animation frames: the first paint's frame, then
 * the next). All modules are preloaded at once; then each module listed in data-early is run on its own (a dynamic
 * import, a task apart), and last the held module, which runs the entry and hydrates. Run together, as a module
 * script runs its whole graph, React, React Router and the routes were one 100–180 ms task at Lighthouse's 4× CPU
 * slowdown, all of it blocking time; one module a task keeps each task shorter. A module that fails to load stops
 * the early runs: the held module then loads what is left, as it would have anyway.
 */
const START_HELD_SCRIPTS =
  `(()=>{const held=document.getElementById("deferred-module");const list=(name)=>JSON.parse(held.dataset[name]||"[]");` +
  `const nextTask=()=>new Promise((resolve)=>setTimeout(resolve,0));` +
  `const preload=()=>{for(const href of list("preload")){const link=document.createElement("link");link.rel="modulepreload";link.href=href;document.head.append(link)}};` +
  `const run=()=>{const script=document.createElement("script");script.type="module";script.nonce=held.nonce;script.textContent=held.textContent;held.replaceWith(script)};` +
  `requestAnimationFrame(()=>requestAnimationFrame(()=>setTimeout(async()=>{preload();` +
  `for(const href of list("early")){await nextTask();try{await import(href)}catch{break}}` +
  `await nextTask();run()},0)))})()`;
