/**
 * The request context key and its type, as the routes see them: the one module through which app/ reaches the
 * server (its types, and the key loaders read the services with). The server defines them, in
 * server/http/request-context.ts, and never imports app/. The page's Response is made the server's way too, so that
 * its compression finds the bytes without reading them back (server/http/response-bytes.ts).
 */

export { requestContext, type RequestContext } from "#server/http/request-context";
export { bytesResponse } from "#server/http/response-bytes";
