// The variables the Hono app's middleware sets on each request, in a module of their own so routes and the app do not
// import each other.

import type { Services } from "#server/services";
import type { Shopper } from "./shopper";

/**
 * What the Hono app's middleware sets on every request, for the routes after it. A module of its own so that routes
 * and the app that mounts them do not import each other.
 */
export type AppEnv = {
  Variables: {
    requestId: string;
    /** The page's Content-Security-Policy nonce, made on its first call (security-headers.ts). */ cspNonce: () => string;
    clientIp: string;
    services: Services;
    shopper: Shopper;
  };
};
