import type { Route } from "./+types/robots-txt";

export function loader({ request }: Route.LoaderArgs) {
  const sitemap = new URL("/sitemap.xml", request.url).href;
  const body = ["User-agent: *", "Allow: /", "Disallow: /checkout", "Disallow: /payment", "Disallow: /orders", "", `Sitemap: ${sitemap}`, ""].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=86400" } });
}
