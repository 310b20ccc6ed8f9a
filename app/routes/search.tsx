import { Link } from "react-router";
import type { Route } from "./+types/search";
import { requestContext } from "../context";
import { parseSearchParams } from "../../shared/catalogue-schemas";
import { BasketButton } from "../features/basket/components/basket-button";
import { ProductShelf } from "../features/catalogue/components/product-shelf";

/** Results in rows of four (one column on a phone, as on the home page). */
const RESULT_ROW_SIZES = [4, 4, 4, 4, 4] as const;

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const { q, page } = parseSearchParams(new URL(request.url).searchParams);
  const results = await services.catalogue.search(q, page);
  // Nothing found: a mended query to try ("Did you mean: stand mixer?") and a few featured products.
  const fallback = results.total === 0 && q !== "" ? await services.catalogue.searchFallback(q) : { suggestion: null, featured: [] };
  return { ...results, ...fallback };
}

function searchPath(query: string, page: number): string {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return search ? `/search?${search}` : "/search";
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const { query, products, total, page, pageCount, suggestion, featured } = loaderData;
  const quoted = `“${query}”`;
  const heading = query === "" ? `All products (${total})` : total === 0 ? `No results for ${quoted}` : `${total} ${total === 1 ? "result" : "results"} for ${quoted}`;
  return (
    <main id="main" className="search">
      <title>{query ? `${query} | Search | Storefront` : "All products | Storefront"}</title>
      <meta name="description" content={query ? `Storefront products matching ${query}.` : "Every product at Storefront."} />
      {/* Result pages are for shoppers; search engines find the products through the sitemap instead. */}
      <meta name="robots" content="noindex, follow" />
      <h1 className="search__heading" aria-live="polite">
        {heading}
      </h1>
      {total === 0 ? (
        <div className="search__empty">
          {suggestion ? (
            <p className="search__suggestion">
              Did you mean: <Link to={searchPath(suggestion, 1)}>{suggestion}</Link>?
            </p>
          ) : (
            <p>Try another word, or a shorter one.</p>
          )}
          <Link to="/" className="button">
            Back to the shop
          </Link>
          {featured.length > 0 ? (
            <section className="search__featured" aria-labelledby="search-featured-title">
              <h2 id="search-featured-title">Featured products</h2>
              <ProductShelf
                products={featured}
                rowSizes={[4]}
                renderAction={(product) => (
                  <BasketButton action="add" productId={product.id}>
                    Add to Basket
                  </BasketButton>
                )}
              />
            </section>
          ) : null}
        </div>
      ) : products.length === 0 ? (
        <div className="search__empty">
          <p>There are no more results.</p>
          <Link to={searchPath(query, 1)} className="button">
            First page of results
          </Link>
        </div>
      ) : (
        <ProductShelf
          products={products}
          rowSizes={RESULT_ROW_SIZES}
          renderAction={(product) => (
            <BasketButton action="add" productId={product.id}>
              Add to Basket
            </BasketButton>
          )}
        />
      )}
      {pageCount > 1 ? (
        <nav className="search__pages" aria-label="Result pages">
          {page > 1 ? (
            <Link to={searchPath(query, Math.min(page - 1, pageCount))} rel="prev">
              Previous
            </Link>
          ) : null}
          <span>
            Page {Math.min(page, pageCount)} of {pageCount}
          </span>
          {page < pageCount ? (
            <Link to={searchPath(query, page + 1)} rel="next">
              Next
            </Link>
          ) : null}
        </nav>
      ) : null}
    </main>
  );
}
