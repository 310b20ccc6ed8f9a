// /admin/products: the product list, with search, status and stock filters, and the way to import, export and add
// products.

import { Link } from "react-router";
import type { Route } from "./+types/products";
import { adminProductListSchema } from "#shared/admin-schemas";
import { formatCents } from "#shared/money";
import { PageHeader } from "#app/features/admin/console-ui";
import { ProductPages, ProductSearch, ProductTable, ProductTabs } from "#app/features/admin/products/product-list";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { mayUse } from "#shared/console-access";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services, access } = requireConsole(context, "routes/admin/products");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const params = adminProductListSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const list = await services.adminProducts.listProducts({
    query: params.q,
    status: params.status,
    page: params.page,
    stock: params.stock,
  });
  return {
    mayExport: mayUse(access, "routes/admin/products-export"),
    ...list,
    query: params.q,
    status: params.status,
    stockFilter: params.stock,
    products: list.products.map((product) => ({
      id: product.id,
      slug: product.slug,
      title: product.title,
      price: formatCents(product.priceCents),
      rating: product.rating === null ? "–" : String(Math.round(product.rating * 10) / 10),
      featuredPosition: product.featuredPosition,
      image: product.image,
      status: product.status,
      stock: product.stock === null ? "Not tracked" : String(product.stock),
      updatedAt: formatConsoleTime(product.updatedAt, timeZone),
    })),
  };
}

export default function AdminProducts({ loaderData }: Route.ComponentProps) {
  const { products, query, status, page, pageCount, total, counts, stockFilter, lowVariants } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Products | Console</title>
      <PageHeader
        title="Products"
        action={
          <>
            {/* A download, not a page: the browser saves the file. */}
            {loaderData.mayExport ? (
              <a href="/admin/products/export" className="console-button" download>
                Export CSV
              </a>
            ) : null}
            <Link to="/admin/products/import" className="console-button">
              Import CSV
            </Link>
            <Link to="/admin/products/new" className="console-button console-button--primary">
              New product
            </Link>
          </>
        }
      />
      <ProductSearch query={query} status={status} />
      <ProductTabs query={query} status={status} stockFilter={stockFilter} counts={counts} />
      <p className="console-count" aria-live="polite">
        {total === 0
          ? "No products match."
          : `${total} ${status} product${total === 1 ? "" : "s"}${query ? ` matching “${query}”` : ""}.`}
        {stockFilter === "low" && total > 0
          ? ` ${lowVariants} variant${lowVariants === 1 ? "" : "s"} at or under their “Low stock at”.`
          : null}
      </p>
      <ProductTable products={products} />
      <ProductPages query={query} status={status} stockFilter={stockFilter} page={page} pageCount={pageCount} />
    </main>
  );
}
