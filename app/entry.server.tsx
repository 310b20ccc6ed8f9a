import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { ServerRouter, type EntryContext, type RouterContextProvider } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { requestContext } from "./context";
import { NonceProvider } from "./components/nonce";
import { isDatabaseUnavailable } from "../server/db/database-errors";

export const streamTimeout = 5_000;

/**
 * Errors thrown by loaders and actions. The page still renders its error boundary ("please try again"); a database
 * outage is noted so the server answers 503 with Retry-After instead of 500. Everything is logged with the request id.
 */
export function handleError(error: unknown, { request, context }: { request: Request; context: RouterContextProvider }) {
  if (request.signal.aborted) return;
  const { services, requestId, outage } = context.get(requestContext);
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

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={cspNonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={cspNonce} />
      </NonceProvider>,
      {
        nonce: cspNonce,
        onAllReady() {
          shellRendered = true;
          const body = new PassThrough({
            final(callback) {
              clearTimeout(timeout);
              callback();
            },
          });
          headers.set("Content-Type", "text/html; charset=utf-8");
          pipe(body);
          resolve(new Response(createReadableStreamFromReadable(body), { headers, status }));
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
