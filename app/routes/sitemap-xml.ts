// /sitemap.xml: the home page, departments and active products on the shop's public origin.

import type { Route } from "./+types/sitemap-xml";
import { requestContext } from "#app/context";
import { productPath } from "#shared/catalogue";
import { departmentPath } from "#shared/listing";

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character] ?? character);

/**
 * The home page, every department's page and every active product's page, as absolute addresses on the shop's public
 * origin; cached publicly only when that is PUBLIC_URL (else it names the request's Host, which a shared cache must
 * not hand to others).
 */
export async function loader({ context }: Route.LoaderArgs) {
  const { services, publicOrigin: origin, isPublicUrlSet } = context.get(requestContext);
  const [products, departments] = await Promise.all([
    services.catalogue.listProductPages(),
    services.departments.listTree(),
  ]);
  const entry = (path: string, lastModified?: Date) =>
    `<url><loc>${escapeXml(new URL(path, origin).href)}</loc>${lastModified ? `<lastmod>${lastModified.toISOString()}</lastmod>` : ""}</url>`;
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    entry("/"),
    entry("/departments"),
    ...departments
      .flatMap((department) => [department, ...department.children])
      .map((department) => entry(departmentPath(department.slug))),
    ...products.map((product) => entry(productPath(product.slug), product.updatedAt)),
    "</urlset>",
    "",
  ].join("\n");
  return new Response(body, {
    headers: {
      "Content-Type": "application/xml; charset=utf-8",
      "Cache-Control": `${isPublicUrlSet ? "public" : "private"}, max-age=3600`,
    },
  });
}
