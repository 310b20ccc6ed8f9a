// The plain frame of the sign-in pages (no shop header): the wordmark, one box and its title.

import type { ReactNode } from "react";
import { Link } from "react-router";
import { Wordmark } from "#app/components/ui/icons";
import { useShopName } from "#app/features/shell/use-shop-name";

/** The plain frame of the sign-in pages (no shop header): the wordmark, one box, a title. */
export function AuthPage({
  title,
  description,
  children,
}: {
  title: string;
  description: string;
  children: ReactNode;
}) {
  const shopName = useShopName();
  return (
    <main id="main" className="login">
      <title>{`${title} | ${shopName}`}</title>
      <meta name="description" content={description} />
      <Link to="/" className="login__logo" aria-label={`${shopName} home`}>
        <Wordmark />
      </Link>
      <div className="login__box">
        <h1 className="login__title">{title}</h1>
        {children}
      </div>
    </main>
  );
}
