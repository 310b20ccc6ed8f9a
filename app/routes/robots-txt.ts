// /robots.txt, naming the sitemap on the shop's public origin.

import type { Route } from "./+types/robots-txt";
import { requestContext } from "#app/context";

/** Names the sitemap on the shop's public origin; cached publicly only when that is PUBLIC_URL, not the request's Host. */
export function loader({ context }: Route.LoaderArgs) {
  const { publicOrigin, isPublicUrlSet } = context.get(requestContext);
  const sitemap = new URL("/sitemap.xml", publicOrigin).href;
  const body = [
    "User-agent: *",
    "Allow: /",
    "Disallow: /checkout",
    "Disallow: /payment",
    "Disallow: /orders",
    "",
    `Sitemap: ${sitemap}`,
    "",
  ].join("\n");
  return new Response(body, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": `${isPublicUrlSet ? "public" : "private"}, max-age=86400`,
    },
  });
}
