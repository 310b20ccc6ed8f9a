// /favicon.ico, leading to the shop's SVG icon rather than to the 404 page.

/**
 * Browsers and crawlers ask for /favicon.ico whatever the page links to: it leads to the shop's icon, which is an
 * SVG (public/favicon.svg), rather than to the 404 page.
 */
export function loader() {
  return new Response(null, {
    status: 301,
    headers: { Location: "/favicon.svg", "Cache-Control": "public, max-age=86400" },
  });
}
