// A listing page's controls (sort, filters, pages), each a link or a GET form so every state is a plain URL that works
// without JavaScript.

import { Form, Link, useSubmit } from "react-router";
import {
  DEFAULT_LISTING_STATE,
  PRICE_BUCKETS,
  SORT_OPTIONS,
  STAR_FILTERS,
  activeFilterCount,
  hasFilters,
  listingSearch,
  resultRange,
  starFilterLabel,
  toggleOptionValue,
  type ListingState,
} from "#shared/listing";
import type { OptionFacet } from "#shared/catalogue";

/**
 * The controls of a listing page (/departments/{slug}, /search): "Sort by", the filters sidebar and the pages. Every
 * control is a link or a GET form, so each state is a plain URL and all of it works without JavaScript; `base` is the
 * page's path and `extra` what the page's own query keeps (/search's q).
 */
export interface ListingLinks {
  base: string;
  state: ListingState;
  extra?: Record<string, string>;
}

function href({ base, extra }: ListingLinks, state: ListingState): string {
  return `${base}${listingSearch(state, extra)}`;
}

/** The same listing with some of the state changed, back on its first page. */
function withChange(links: ListingLinks, change: Partial<ListingState>): string {
  return href(links, { ...links.state, page: 1, ...change });
}

/** The query's other parameters as hidden fields, so that a GET form changes only its own. */
function HiddenFields({ links, omit }: { links: ListingLinks; omit: string[] }) {
  const params = new URLSearchParams(listingSearch({ ...links.state, page: 1 }, links.extra));
  return (
    <>
      {[...params]
        .filter(([name]) => !omit.includes(name))
        .map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
    </>
  );
}

/** "Sort by" as a GET form: "Go" sends it without JavaScript; with it, choosing is enough. */
export function SortForm({ links }: { links: ListingLinks }) {
  const submit = useSubmit();
  return (
    <Form
      method="get"
      action={links.base}
      className="listing__sort"
      onChange={(event) => void submit(event.currentTarget)}
    >
      <HiddenFields links={links} omit={["sort"]} />
      <label htmlFor="listing-sort">Sort by</label>
      <select id="listing-sort" name="sort" defaultValue={links.state.sort} key={links.state.sort}>
        {SORT_OPTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <button type="submit" className="button button--small">
        Go
      </button>
    </Form>
  );
}

export interface FacetLink {
  slug: string;
  name: string;
  count: number;
}

/**
 * The sidebar: departments (with counts), price, customer review, availability and the results' option values (with
 * counts); each a link that changes the URL's query. On a phone it folds behind "Filters" (with how many are on), so
 * that the first products show in the first screen; a wide screen always shows it (app.css).
 */
export function ListingFilters({
  links,
  departments,
  optionFacets,
  departmentHeading = "Department",
  departmentLink,
}: {
  links: ListingLinks;
  departments: FacetLink[];
  optionFacets: OptionFacet[];
  departmentHeading?: string;
  /** Where a department's link goes (a department page's sub-department); default: this listing with it as a filter. */
  departmentLink?: (slug: string) => string;
}) {
  const { state } = links;
  const isTypedRange = state.minDollars !== null || state.maxDollars !== null;
  const active = activeFilterCount(state);
  return (
    <details className="listing__disclosure">
      <summary className="listing__disclosure-summary">
        Filters
        {active > 0 ? (
          <>
            {" "}
            ({active}
            <span className="visually-hidden"> active</span>)
          </>
        ) : null}
      </summary>
      <aside className="listing__filters" aria-label="Filters">
        {departments.length > 0 ? (
          <section aria-labelledby="filter-department">
            <h2 id="filter-department">{departmentHeading}</h2>
            <ul>
              {departments.map((department) => {
                const isCurrent = state.department === department.slug;
                return (
                  <li key={department.slug}>
                    <Link
                      to={
                        departmentLink
                          ? departmentLink(department.slug)
                          : withChange(links, { department: isCurrent ? null : department.slug })
                      }
                      aria-current={isCurrent ? "true" : undefined}
                    >
                      {department.name}
                    </Link>{" "}
                    <span className="listing__count">{`(${department.count})`}</span>
                  </li>
                );
              })}
            </ul>
          </section>
        ) : null}
        <section aria-labelledby="filter-price">
          <h2 id="filter-price">Price</h2>
          <ul>
            {PRICE_BUCKETS.map((bucket) => {
              const isCurrent = !isTypedRange && state.price === bucket.value;
              return (
                <li key={bucket.value}>
                  <Link
                    to={withChange(links, {
                      price: isCurrent ? null : bucket.value,
                      minDollars: null,
                      maxDollars: null,
                    })}
                    aria-current={isCurrent ? "true" : undefined}
                  >
                    {bucket.label}
                  </Link>
                </li>
              );
            })}
          </ul>
          <Form method="get" action={links.base} className="listing__price-range">
            <HiddenFields links={links} omit={["price", "min", "max"]} />
            <label>
              <span>Min</span>
              <input
                name="min"
                inputMode="numeric"
                pattern="[0-9]*"
                size={5}
                defaultValue={state.minDollars ?? ""}
                key={`min-${state.minDollars}`}
                placeholder="$"
              />
            </label>
            <label>
              <span>Max</span>
              <input
                name="max"
                inputMode="numeric"
                pattern="[0-9]*"
                size={5}
                defaultValue={state.maxDollars ?? ""}
                key={`max-${state.maxDollars}`}
                placeholder="$"
              />
            </label>
            <button type="submit" className="button button--small" aria-label="Go, price range">
              Go
            </button>
          </Form>
        </section>
        <section aria-labelledby="filter-review">
          <h2 id="filter-review">Customer Review</h2>
          <ul>
            {STAR_FILTERS.map((stars) => {
              const isCurrent = state.stars === stars;
              return (
                <li key={stars}>
                  <Link
                    to={withChange(links, { stars: isCurrent ? null : stars })}
                    aria-current={isCurrent ? "true" : undefined}
                  >
                    {starFilterLabel(stars)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </section>
        <section aria-labelledby="filter-availability">
          <h2 id="filter-availability">Availability</h2>
          <ul>
            <li>
              <Link
                className="listing__check"
                to={withChange(links, { includeOutOfStock: !state.includeOutOfStock })}
                aria-current={state.includeOutOfStock ? "true" : undefined}
              >
                Include Out of Stock
              </Link>
            </li>
          </ul>
        </section>
        {optionFacets.map((facet) => (
          <section key={facet.param} aria-labelledby={`filter-option-${facet.param}`}>
            <h2 id={`filter-option-${facet.param}`}>{facet.name}</h2>
            <ul>
              {facet.values.map(({ value, count }) => {
                const isCurrent = state.options[facet.param]?.includes(value) ?? false;
                return (
                  <li key={value}>
                    <Link
                      className="listing__check"
                      to={href(links, { ...toggleOptionValue(state, facet.param, value), page: 1 })}
                      aria-current={isCurrent ? "true" : undefined}
                    >
                      {value}
                    </Link>{" "}
                    <span className="listing__count">{`(${count})`}</span>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
        {hasFilters(state) ? (
          <p>
            <Link to={href(links, { ...DEFAULT_LISTING_STATE, sort: state.sort })}>Clear all filters</Link>
          </p>
        ) : null}
      </aside>
    </details>
  );
}

/** "1-24 of 137 results", for the top of the list. */
export function ResultCount({ page, shown, total }: { page: number; shown: number; total: number }) {
  return (
    <p className="listing__count-line" aria-live="polite">
      {total === 0 ? "No results" : resultRange(page, shown, total)}
    </p>
  );
}

/** "Previous" and "Next". */
export function ListingPages({ links, pageCount }: { links: ListingLinks; pageCount: number }) {
  const { page } = links.state;
  if (pageCount <= 1) return null;
  return (
    <nav className="listing__pages" aria-label="Result pages">
      {page > 1 ? (
        <Link to={href(links, { ...links.state, page: page - 1 })} rel="prev">
          Previous
        </Link>
      ) : null}
      <span>
        Page {page} of {pageCount}
      </span>
      {page < pageCount ? (
        <Link to={href(links, { ...links.state, page: page + 1 })} rel="next">
          Next
        </Link>
      ) : null}
    </nav>
  );
}

/** What an empty listing says, with the way back (`action`, when given, before any other). */
export function NoResults({
  links,
  hint,
  withoutFilters,
  action,
}: {
  links: ListingLinks;
  hint?: string;
  withoutFilters?: { to: string; label: string };
  action?: { to: string; label: string };
}) {
  return (
    <div className="listing__empty">
      <h2>No results</h2>
      {hint ? <p>{hint}</p> : null}
      {action ? (
        <Link className="button" to={action.to}>
          {action.label}
        </Link>
      ) : hasFilters(links.state) ? (
        <Link className="button" to={href(links, { ...DEFAULT_LISTING_STATE })}>
          Clear all filters
        </Link>
      ) : withoutFilters ? (
        <Link className="button" to={withoutFilters.to}>
          {withoutFilters.label}
        </Link>
      ) : null}
    </div>
  );
}
