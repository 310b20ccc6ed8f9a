// The console's product list: search by title, the status and stock tabs (with their counts), the table of products
// with their stock and rating, and its numbered pages. One place builds a list address, so every link keeps the rest.

import { Form, Link } from "react-router";
import { StatusBadge, Thumbnail } from "#app/features/admin/console-ui";

/** The list's address for a status, search, page and stock filter. */
export function listHref(status: string, query: string, page = 1, stock = "") {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  if (status !== "active") params.set("status", status);
  if (stock) params.set("stock", stock);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return `/admin/products${search ? `?${search}` : ""}`;
}

/** "Search titles", the archived status carried along. */
export function ProductSearch({ query, status }: { query: string; status: string }) {
  return (
    <Form method="get" className="console-search" role="search">
      <label htmlFor="product-search">Search titles</label>
      <input id="product-search" name="q" type="search" defaultValue={query} maxLength={200} key={query} />
      {status !== "active" ? <input type="hidden" name="status" value={status} /> : null}
      <button type="submit" className="console-button">
        Search
      </button>
    </Form>
  );
}

/** Active and Archived (with their counts), then any, low or out of stock. */
export function ProductTabs({
  query,
  status,
  stockFilter,
  counts,
}: {
  query: string;
  status: string;
  stockFilter: string;
  counts: { active: number; archived: number };
}) {
  return (
    <>
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
    </>
  );
}

/** A product's row, as the loader words it. */
export interface ProductRow {
  id: string;
  title: string;
  image: string;
  status: string;
  price: string;
  rating: string;
  featuredPosition: number | null;
  stock: string;
  slug: string;
  updatedAt: string;
}

/** The table of products (none when nothing matches). */
export function ProductTable({ products }: { products: ProductRow[] }) {
  return products.length > 0 ? (
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
  ) : null;
}

/** "Previous", "Page 2 of 5", "Next", when there is more than one page. */
export function ProductPages({
  query,
  status,
  stockFilter,
  page,
  pageCount,
}: {
  query: string;
  status: string;
  stockFilter: string;
  page: number;
  pageCount: number;
}) {
  return pageCount > 1 ? (
    <nav className="console-pages" aria-label="Pages">
      {page > 1 ? <Link to={listHref(status, query, page - 1, stockFilter)}>Previous</Link> : null}
      <span>
        Page {page} of {pageCount}
      </span>
      {page < pageCount ? <Link to={listHref(status, query, page + 1, stockFilter)}>Next</Link> : null}
    </nav>
  ) : null;
}
