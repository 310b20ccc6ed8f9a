export function loader() {
  const body = ["User-agent: *", "Allow: /", "Disallow: /checkout", "Disallow: /payment", "Disallow: /orders", ""].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=86400" } });
}
