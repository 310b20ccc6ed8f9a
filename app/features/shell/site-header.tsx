// The shop's header: the wordmark, the search form, the department menu, the account and the basket's count.

import { Form, Link, useLocation } from "react-router";
import { BasketIcon, SearchIcon, Wordmark } from "#app/components/ui/icons";
import { SEARCH_QUERY_MAX_LENGTH } from "#shared/catalogue";
import { signInPath } from "#shared/local-path";
import { SignOutButton } from "#app/features/account/sign-out-button";
import { useBasketSaving, useOptimisticCount } from "#app/features/basket/basket-context";
import { DEFAULT_SHOP_NAME, type ShopIdentity } from "#shared/shop-settings";
import { DepartmentMenu, type MenuDepartment } from "./department-menu";

export interface SiteHeaderProps {
  /** The signed-in shopper's e-mail, or null for a guest. */
  greetingName: string | null;
  basketCount: number;
  /** The basket's revision the count was read at (see BasketView.revision). */
  basketRevision: number;
  /** Staff get a link to the console (its first page they may open); nobody else sees that it exists. */
  consoleHome?: string;
  /** The header's "All" menu. */
  departments?: readonly MenuDepartment[];
  /** The shop's name and logo (its settings); the built-in wordmark when it set neither. */
  shop?: ShopIdentity;
}

/** The logo's height in the header, in CSS pixels; its width follows its proportions. */
const LOGO_HEIGHT = 32;

/** The shop's logo, else its name, else (a shop that set neither) the built-in wordmark. */
function ShopMark({ shop }: { shop: ShopIdentity }) {
  if (shop.logo)
    return (
      <img
        className="site-header__logo-picture"
        src={shop.logo.src}
        srcSet={shop.logo.srcSet}
        sizes={`${Math.round((shop.logo.width * LOGO_HEIGHT) / shop.logo.height)}px`}
        width={Math.round((shop.logo.width * LOGO_HEIGHT) / shop.logo.height)}
        height={LOGO_HEIGHT}
        alt=""
      />
    );
  if (shop.name !== DEFAULT_SHOP_NAME) return <span className="site-header__shop-name">{shop.name}</span>;
  return <Wordmark />;
}

/** The dark bar on every screen but /login: wordmark, departments, search, greeting, orders, basket. */
export function SiteHeader({
  greetingName,
  basketCount: serverCount,
  basketRevision,
  consoleHome,
  departments = [],
  shop = { name: DEFAULT_SHOP_NAME, logo: null, supportEmail: null },
}: SiteHeaderProps) {
  const basketCount = useOptimisticCount(serverCount, basketRevision);
  const isBasketSaving = useBasketSaving();
  const itemWord = basketCount === 1 ? "item" : "items";
  // On the results page the box keeps what was searched for; keyed by it, so it follows back and forward.
  const location = useLocation();
  const searchedFor = location.pathname === "/search" ? (new URLSearchParams(location.search).get("q") ?? "") : "";
  return (
    <header className="site-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Link to="/" className="site-header__logo" aria-label={`${shop.name} home`}>
        <ShopMark shop={shop} />
      </Link>

      <div className="site-header__find">
        <DepartmentMenu departments={departments} />
        {/* A plain GET form, so it works without JavaScript; with it, React Router navigates without a reload. */}
        <Form role="search" className="site-header__search" method="get" action="/search">
          <label className="visually-hidden" htmlFor="site-search">
            {`Search ${shop.name}`}
          </label>
          <input
            key={searchedFor}
            id="site-search"
            name="q"
            type="search"
            className="site-header__search-input"
            placeholder={`Search ${shop.name}`}
            defaultValue={searchedFor}
            maxLength={SEARCH_QUERY_MAX_LENGTH}
            enterKeyHint="search"
          />
          <button type="submit" className="site-header__search-button" aria-label="Search">
            <SearchIcon />
          </button>
        </Form>
      </div>

      <nav className="site-header__nav" aria-label="Account and basket">
        {greetingName ? (
          <>
            <Link to="/account" className="site-header__option">
              <span className="site-header__line-one site-header__greeting">Hello {greetingName}</span>
              <span className="site-header__line-two">Your Account</span>
            </Link>
            <SignOutButton className="site-header__option site-header__option--sign-out">
              <span className="site-header__line-one">Not you?</span>
              <span className="site-header__line-two">Sign Out</span>
            </SignOutButton>
          </>
        ) : (
          <Link to={signInPath(location.pathname + location.search)} className="site-header__option">
            <span className="site-header__line-one">Hello Guest</span>
            <span className="site-header__line-two">Sign In</span>
          </Link>
        )}
        {consoleHome ? (
          // A document load: the console's routes come with the operator's own route manifest, which the page
          // in hand may predate (it was loaded before signing in).
          <Link to={consoleHome} reloadDocument className="site-header__option site-header__option--admin">
            <span className="site-header__line-two">Admin</span>
          </Link>
        ) : null}
        <Link to="/orders" className="site-header__option">
          <span className="site-header__line-one">Returns</span>
          <span className="site-header__line-two">&amp; Orders</span>
        </Link>
        <Link
          to="/checkout"
          className="site-header__basket"
          aria-label={`Basket, ${basketCount} ${itemWord}`}
          aria-busy={isBasketSaving}
        >
          <BasketIcon />
          <span className="site-header__basket-count" data-testid="basket-count">
            {basketCount}
          </span>
        </Link>
      </nav>
    </header>
  );
}
