// /departments/{slug}: a department's listing, sorted and filtered by its query string.

import { data } from "react-router";
import type { Route } from "./+types/department";
import { requestContext } from "#app/context";
import { departmentPath, hasFilters, MAX_LISTING_PAGE, parseListingState, resultRange } from "#shared/listing";
import { BasketButton } from "#app/features/basket/components/basket-button";
import { Breadcrumbs } from "#app/features/catalogue/components/breadcrumbs";
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

const ROW_SIZES = [4, 4, 4, 4, 4, 4] as const;

/**
 * A department's listing: its active products and its sub-departments', sorted and filtered by the query string.
 * An unknown department, or a page past the end, is a 404.
 */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services, publicOrigin } = context.get(requestContext);
  const found = /^[a-z0-9]+(-[a-z0-9]+)*$/.test(params.slug)
    ? await services.departments.findBySlug(params.slug)
    : undefined;
  if (!found) throw data(null, { status: 404 });
  // A department page has no department filter of its own: its sub-departments are links.
  const asked = { ...parseListingState(new URL(request.url).searchParams), department: null };
  if (asked.page > MAX_LISTING_PAGE) throw data(null, { status: 404 });
  const { department, parent, children } = found;
  const childIds = children.map((child) => child.id);
  const results = await services.catalogue.listDepartment([department.id, ...childIds], asked, childIds);
  const state = { ...asked, options: results.appliedOptions };
  if (state.page > 1 && state.page > results.pageCount) throw data(null, { status: 404 });
  return {
    department,
    trail: [
      ...(parent ? [{ name: parent.name, slug: parent.slug }] : []),
      { name: department.name, slug: department.slug },
    ],
    subDepartments: children.map((child) => ({
      slug: child.slug,
      name: child.name,
      count: results.departmentCounts[child.id] ?? 0,
    })),
    results,
    state,
    origin: publicOrigin,
  };
}

export default function DepartmentPage({ loaderData }: Route.ComponentProps) {
  const shopName = useShopName();
  const { department, trail, subDepartments, results, state, origin } = loaderData;
  const base = departmentPath(department.slug);
  const links: ListingLinks = { base, state };
  // Filtered, sorted and later pages are the same products again: search engines index the plain department.
  const isPlain = !hasFilters(state) && state.sort === "featured" && state.page === 1;
  const range = results.total > 0 ? ` (${resultRange(state.page, results.products.length, results.total)})` : "";
  return (
    <main id="main" className="listing">
      <title>{`${department.name}${state.page > 1 ? `, page ${state.page}` : ""} | ${shopName}`}</title>
      <meta name="description" content={department.description || `${department.name} at ${shopName}${range}.`} />
      <link rel="canonical" href={new URL(base, origin).href} />
      {isPlain ? null : <meta name="robots" content="noindex, follow" />}
      <Breadcrumbs trail={trail} origin={origin} isLastThisPage />
      <div className="listing__top">
        <h1 className="listing__heading">{department.name}</h1>
        <ResultCount page={state.page} shown={results.products.length} total={results.total} />
        <SortForm links={links} />
      </div>
      {department.description ? <p className="listing__description">{department.description}</p> : null}
      <div className="listing__body">
        <ListingFilters
          links={links}
          departments={subDepartments}
          optionFacets={results.optionFacets}
          departmentHeading="Departments"
          departmentLink={(slug) => departmentPath(slug)}
        />
        <div className="listing__results">
          {results.total === 0 ? (
            <NoResults links={links} hint="No products match these filters." />
          ) : (
            <ProductShelf
              products={results.products}
              rowSizes={ROW_SIZES}
              renderAction={(product) => (
                <BasketButton action="add" productId={product.id}>
                  Add to Basket
                </BasketButton>
              )}
            />
          )}
          <ListingPages links={links} pageCount={results.pageCount} />
        </div>
      </div>
    </main>
  );
}
