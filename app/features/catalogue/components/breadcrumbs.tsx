// Breadcrumbs (Home > Computers > Monitors), the same trail search engines read as BreadcrumbList.

import { Link } from "react-router";
import { useServerDocument } from "#app/components/server-document";
import { departmentPath } from "#shared/listing";
import type { DepartmentTrail } from "#shared/departments";
import { jsonForScriptElement } from "#app/features/catalogue/product-structured-data";

/**
 * Home > Computers > Monitors: the way up from a page, as a nav labelled "Breadcrumb", with the same trail as
 * schema.org's BreadcrumbList for search engines. On a department's own page the last step is that page (not a
 * link); on a product page every step is a link.
 */
export function Breadcrumbs({
  trail,
  isLastThisPage = false,
  origin,
}: {
  trail: DepartmentTrail;
  isLastThisPage?: boolean;
  origin: string;
}) {
  const nonce = useServerDocument()?.nonce;
  const items = [
    { name: "Home", path: "/" },
    ...trail.map((step) => ({ name: step.name, path: departmentPath(step.slug) })),
  ];
  const structured = {
    "@context": "https://schema.org",
    "@type": "BreadcrumbList",
    itemListElement: items.map((item, index) => ({
      "@type": "ListItem",
      position: index + 1,
      name: item.name,
      item: new URL(item.path, origin).href,
    })),
  };
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        {items.map((item, index) => {
          const isPage = isLastThisPage && index === items.length - 1;
          return (
            <li key={item.path}>
              {isPage ? <span aria-current="page">{item.name}</span> : <Link to={item.path}>{item.name}</Link>}
            </li>
          );
        })}
      </ol>
      <script
        type="application/ld+json"
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: jsonForScriptElement(structured) }}
      />
    </nav>
  );
}
