/**
 * The request context key and its type, as the routes see them: the one module through which app/ reaches the
 * server (its types, and the key loaders read the services with). The server defines them, in
 * server/http/request-context.ts, and never imports app/.
 */
export { requestContext, type RequestContext } from "#server/http/request-context";
