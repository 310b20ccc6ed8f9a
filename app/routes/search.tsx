// /search: the catalogue's search results, sorted and filtered, with "Did you mean".

import { data, Link } from "react-router";
import type { Route } from "./+types/search";
import { requestContext } from "#app/context";
import { parseSearchParams } from "#shared/catalogue-schemas";
import { MAX_LISTING_PAGE, listingSearch, parseListingState } from "#shared/listing";
import { BasketButton } from "#app/features/basket/components/basket-button";
import {
  ListingFilters,
  ListingPages,
  NoResults,
  ResultCount,
  SortForm,
  type ListingLinks,
} from "#app/features/catalogue/components/listing-controls";
import { ProductShelf } from "#app/features/catalogue/components/product-shelf";
import { useShopName } from "#app/features/shell/use-shop-name";
import { KeptHtml } from "#app/components/kept-html";

/** Results in rows of four (one column on a phone, as on the home page). */
const RESULT_ROW_SIZES = [4, 4, 4, 4, 4, 4] as const;

/**
 * What a shopper searched for, with a department listing's sort and filters, and the departments of the results
 * with counts. A department filter that names no department is ignored; a page past the end is a 404.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = context.get(requestContext);
  const params = new URL(request.url).searchParams;
  const { q } = parseSearchParams(params);
  const parsed = parseListingState(params);
  if (parsed.page > MAX_LISTING_PAGE) throw data(null, { status: 404 });
  const tree = await services.departments.listTree();
  const chosen = parsed.department ? await services.departments.findBySlug(parsed.department) : undefined;
  const asked = { ...parsed, department: chosen ? chosen.department.slug : null };
  const departmentIds = chosen ? [chosen.department.id, ...chosen.children.map((child) => child.id)] : null;
  const results = await services.catalogue.search(q, asked, departmentIds);
  const state = { ...asked, options: results.appliedOptions };
  // Nothing in stock: how many sold-out products match, so that the page offers them rather than another word.
  const soldOut =
    results.total === 0 && q !== "" && !asked.includeOutOfStock
      ? (await services.catalogue.search(q, { ...asked, includeOutOfStock: true, page: 1 }, departmentIds)).total
      : 0;
  // Nothing found at all: a mended query to try ("Did you mean: stand mixer?") and a few featured products.
  const fallback =
    results.total === 0 && q !== "" && soldOut === 0
      ? await services.catalogue.searchFallback(q)
      : { suggestion: null, featured: [] };
  if (state.page > 1 && state.page > results.pageCount) throw data(null, { status: 404 });
  const facets = tree
    .map((department) => ({
      slug: department.slug,
      name: department.name,
      count: results.departmentCounts[department.id] ?? 0,
    }))
    .filter((facet) => facet.count > 0 || facet.slug === state.department);
  return { ...results, state, facets, soldOut, ...fallback };
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { query, products, total, page, pageCount, state, facets, optionFacets, suggestion, featured, soldOut } =
    loaderData;
  const links: ListingLinks = { base: "/search", state, extra: { q: query } };
  const quoted = `“${query}”`;
  const heading =
    query === ""
      ? `All products (${total})`
      : total === 0
        ? `No results for ${quoted}`
        : `${total} ${total === 1 ? "result" : "results"} for ${quoted}`;
  return (
    <main id="main" className="listing search">
      <title>{query ? `${query} | Search | ${shopName}` : `All products | ${shopName}`}</title>
      <meta
        name="description"
        content={query ? `${shopName} products matching ${query}.` : `Every product at ${shopName}.`}
      />
      {/* Result pages are for shoppers; search engines find the products through the sitemap instead. */}
      <meta name="robots" content="noindex, follow" />
      {/*
        The results are kept per catalogue version (server/catalogue), and so is their HTML: the same for every shopper
        who asks at this address, rendered once. Only the header is the shopper's own.
      */}
      <KeptHtml name="search-results" source={products}>
        <div className="listing__top">
          <h1 className="listing__heading search__heading" aria-live="polite">
            {heading}
          </h1>
          <ResultCount page={page} shown={products.length} total={total} />
          <SortForm links={links} />
        </div>
        <div className="listing__body">
          <ListingFilters links={links} departments={facets} optionFacets={optionFacets} />
          <div className="listing__results">
            {total === 0 ? (
              <>
                {suggestion ? (
                  <p className="search__suggestion">
                    Did you mean:{" "}
                    <Link to={`/search?${new URLSearchParams({ q: suggestion }).toString()}`}>{suggestion}</Link>?
                  </p>
                ) : null}
                {soldOut > 0 ? (
                  <NoResults
                    links={links}
                    hint={`No results in stock for ${quoted}.`}
                    action={{
                      to: `/search${listingSearch({ ...state, includeOutOfStock: true, page: 1 }, { q: query })}`,
                      label: `Show ${soldOut} sold-out result${soldOut === 1 ? "" : "s"}`,
                    }}
                  />
                ) : (
                  <NoResults
                    links={links}
                    hint={suggestion ? undefined : "Try another word, or a shorter one."}
                    withoutFilters={{ to: "/", label: "Back to the shop" }}
                  />
                )}
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
              </>
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
            <ListingPages links={links} pageCount={pageCount} />
          </div>
        </div>
      </KeptHtml>
    </main>
  );
}
