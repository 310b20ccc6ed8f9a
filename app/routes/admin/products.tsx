import { Form, Link } from "react-router";
import type { Route } from "./+types/products";
import { adminProductListSchema } from "#shared/admin-schemas";
import { formatCents } from "#shared/money";
import { PageHeader, StatusBadge, Thumbnail } from "#app/features/admin/console-ui";
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

function listHref(status: string, query: string, page = 1, stock = "") {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  if (status !== "active") params.set("status", status);
  if (stock) params.set("stock", stock);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return `/admin/products${search ? `?${search}` : ""}`;
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
      <Form method="get" className="console-search" role="search">
        <label htmlFor="product-search">Search titles</label>
        <input id="product-search" name="q" type="search" defaultValue={query} maxLength={200} key={query} />
        {status !== "active" ? <input type="hidden" name="status" value={status} /> : null}
        <button type="submit" className="console-button">
          Search
        </button>
      </Form>
      <ul className="console-tabs" aria-label="Product status">
        <li>
          <Link to={listHref("active", query)} aria-current={status === "active" ? "page" : undefined}>
            Active ({counts.active})
          </Link>
        </li>
        <li>
          <Link to={listHref("archived", query)} aria-current={status === "archived" ? "page" : undefined}>
            Archived ({counts.archived})
          </Link>
        </li>
      </ul>
      <ul className="console-tabs" aria-label="Stock">
        <li>
          <Link to={listHref(status, query)} aria-current={stockFilter === "" ? "page" : undefined}>
            Any stock
          </Link>
        </li>
        <li>
          <Link to={listHref(status, query, 1, "low")} aria-current={stockFilter === "low" ? "page" : undefined}>
            Low stock
          </Link>
        </li>
        <li>
          <Link to={listHref(status, query, 1, "out")} aria-current={stockFilter === "out" ? "page" : undefined}>
            Out of stock
          </Link>
        </li>
      </ul>
      <p className="console-count" aria-live="polite">
        {total === 0
          ? "No products match."
          : `${total} ${status} product${total === 1 ? "" : "s"}${query ? ` matching “${query}”` : ""}.`}
        {stockFilter === "low" && total > 0
          ? ` ${lowVariants} variant${lowVariants === 1 ? "" : "s"} at or under their “Low stock at”.`
          : null}
      </p>
      {products.length > 0 ? (
        <table className="console-table" tabIndex={0}>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Status</th>
              <th scope="col" className="console-number">
                Price
              </th>
              <th scope="col" className="console-number">
                Rating
              </th>
              <th scope="col" className="console-number">
                Featured
              </th>
              <th scope="col" className="console-number">
                Stock
              </th>
              <th scope="col">Address</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {products.map((product) => (
              <tr key={product.id}>
                <td>
                  <span className="console-product">
                    <Thumbnail src={product.image} />
                    <Link to={`/admin/products/${product.id}`}>{product.title}</Link>
                  </span>
                </td>
                <td>
                  <StatusBadge status={product.status} />
                </td>
                <td className="console-number">{product.price}</td>
                <td className="console-number">{product.rating}</td>
                <td className="console-number">{product.featuredPosition ?? "–"}</td>
                <td className="console-number">{product.stock}</td>
                <td>
                  <code>/products/{product.slug}</code>
                </td>
                <td>{product.updatedAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {pageCount > 1 ? (
        <nav className="console-pages" aria-label="Pages">
          {page > 1 ? <Link to={listHref(status, query, page - 1, stockFilter)}>Previous</Link> : null}
          <span>
            Page {page} of {pageCount}
          </span>
          {page < pageCount ? <Link to={listHref(status, query, page + 1, stockFilter)}>Next</Link> : null}
        </nav>
      ) : null}
    </main>
  );
}
