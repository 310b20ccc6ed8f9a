// The foot of every shop page: conditions, privacy notice and returns, and the shop's support address.

import { Link } from "react-router";
import { LEGAL_PAGE_TITLES } from "#shared/shop-settings";

/**
 * The foot of every shop page: the shop's conditions, privacy notice and returns, and the address to write to, where
 * a shopper looks for them.
 */
export function SiteFooter({ shopName, supportEmail }: { shopName: string; supportEmail: string | null }) {
  return (
    <footer className="site-footer">
      <nav aria-label="Legal">
        <ul className="site-footer__links">
          <li>
            <Link to="/conditions">{LEGAL_PAGE_TITLES.conditions}</Link>
          </li>
          <li>
            <Link to="/privacy">{LEGAL_PAGE_TITLES.privacy}</Link>
          </li>
          <li>
            <Link to="/returns">{LEGAL_PAGE_TITLES.returns}</Link>
          </li>
        </ul>
      </nav>
      {supportEmail ? (
        <p className="site-footer__contact">
          Contact us: <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
        </p>
      ) : null}
      <p className="site-footer__name">{`© ${shopName}`}</p>
    </footer>
  );
}
