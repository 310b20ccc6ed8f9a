// Reloading a page's data when the shopper comes back to the tab, since another tab may have changed the basket.

import { useEffect } from "react";
import { useRevalidator } from "react-router";

/**
 * When the shopper comes back to this tab, reload the page's data: another tab may have changed the basket
 * (or signed in or out) meanwhile.
 */
export function useRevalidateOnFocus() {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    const onFocus = () => void revalidate();
    const onVisibilityChange = () => {
      if (document.visibilityState === "visible") void revalidate();
    };
    window.addEventListener("focus", onFocus);
    document.addEventListener("visibilitychange", onVisibilityChange);
    return () => {
      window.removeEventListener("focus", onFocus);
      document.removeEventListener("visibilitychange", onVisibilityChange);
    };
  }, [revalidate]);
}
