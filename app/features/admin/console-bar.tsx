// The bar across the top of every console page: the shop's name as the way to its first page, who is signed in, the
// way back to the shop, and Sign out (a plain form, so it works before the page's scripts run).

import { Link } from "react-router";
import { useShopName } from "#app/features/shell/use-shop-name";

/** `home`: the first console page the member of staff may open. */
export function ConsoleBar({ home, operatorEmail }: { home: string; operatorEmail: string }) {
  const shopName = useShopName();
  return (
    <header className="console-bar">
      <Link to={home} className="console-bar__title">
        {`${shopName} console`}
      </Link>
      <span className="console-bar__who">{operatorEmail}</span>
      <Link to="/" reloadDocument className="console-bar__link">
        Shop
      </Link>
      <form method="post" action="/logout">
        <input type="hidden" name="returnTo" value="/" />
        <button type="submit" className="console-button console-button--quiet">
          Sign out
        </button>
      </form>
    </header>
  );
}
