// The request context React Router's loaders and actions read: the services as pages see them, the shopper and the
// access; the only way from app/ into server/.

import { createContext } from "react-router";
import type { Services } from "#server/services";
import type { Shopper } from "./shopper";

/** The services as pages see them: everything but the raw database handle, which only the services themselves use. */
export type PageServices = Omit<Services, "database">;

/**
 * What the custom server hands to every loader and action: the services, this request's id and its script nonce.
 * It lives with the server that fills it in; app/context.ts hands it to the routes, so that the server never
 * imports app/ and app/ reaches the server's types only through that one module.
 */
export interface RequestContext {
  services: PageServices;
  requestId: string;
  /** The Content-Security-Policy nonce this response's inline scripts must carry. */
  cspNonce: string;
  /** The browser's session, if it has one. */
  shopper: Shopper;
  /** Where the request came from, for rate limits. */
  clientIp: string;
  /**
   * The shop's address as shoppers reach it, for absolute links (canonical, Open Graph, sitemap): PUBLIC_URL's
   * origin when set, else the request's host by the scheme the browser used (a trusted proxy's X-Forwarded-Proto).
   */
  publicOrigin: string;
  /** Whether publicOrigin is PUBLIC_URL's: else it came from the request, and what names it is not cached publicly. */
  isPublicUrlSet: boolean;
  /** Set while rendering when a loader or action found the database unreachable: the page is then a 503. */
  outage: { isDatabaseUnavailable: boolean };
  /** Whether an error a loader or action threw means the database could not be reached (server/db knows how to tell). */
  isDatabaseUnavailable: (error: unknown) => boolean;
}

export const requestContext = createContext<RequestContext>();
