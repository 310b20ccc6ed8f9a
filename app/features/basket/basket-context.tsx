import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useRevalidator, useRouteLoaderData } from "react-router";
import type { BasketAction } from "../../../shared/basket";
import type { ErrorBody } from "../../../shared/errors";

/** A basket change sent to the server and not yet reflected in the loaders' data. */
export interface PendingChange {
  id: number;
  action: Exclude<BasketAction, "empty">;
  productId: string;
}

/** A change the server has answered: it stays shown until the page's data is newer than at that answer. */
interface TrackedChange extends PendingChange {
  answeredWith?: unknown;
}

export interface Announcement {
  id: number;
  text: string;
  isError: boolean;
}

interface BasketState {
  pending: readonly PendingChange[];
  announcement: Announcement | null;
  change(action: PendingChange["action"], productId: string): void;
}

const BasketContext = createContext<BasketState | null>(null);

const NETWORK_ERROR = "We couldn't reach the shop, so your basket was not changed. Check your connection and try again.";
const UNKNOWN_ERROR = "Your basket could not be changed. Please try again.";

/**
 * The enhanced basket: with JavaScript, buttons post JSON instead of navigating. Each change shows at once
 * (optimistic count and list, derived from `pending`), then the server's answer wins: the page's loaders are
 * revalidated, and a refusal or a network failure rolls the change back and says why.
 *
 * An answered change stops being shown when the page's data is replaced by newer data, not when a revalidation
 * promise settles: a revalidation can be interrupted by another (a tab regaining focus), and the change must not
 * stay counted twice, nor vanish before the server's data shows it.
 */
export function BasketProvider({ children }: { children: ReactNode }) {
  const [tracked, setTracked] = useState<TrackedChange[]>([]);
  const [announcement, setAnnouncement] = useState<Announcement | null>(null);
  const revalidator = useRevalidator();
  const nextId = useRef(0);
  const pageData = useRouteLoaderData("routes/shop-layout");
  const latestPageData = useRef(pageData);
  useEffect(() => {
    latestPageData.current = pageData;
  });
  const pending = useMemo(
    () => tracked.filter((entry) => !("answeredWith" in entry) || entry.answeredWith === pageData),
    [tracked, pageData],
  );
  // Keeps only what is still shown (answered changes the page's data has caught up with are dropped).
  const stillShown = (entries: TrackedChange[]) =>
    entries.filter((entry) => !("answeredWith" in entry) || entry.answeredWith === latestPageData.current);

  const announce = useCallback((text: string, isError: boolean) => {
    setAnnouncement({ id: ++nextId.current, text, isError });
  }, []);

  const change = useCallback(
    (action: PendingChange["action"], productId: string) => {
      const entry: TrackedChange = { id: ++nextId.current, action, productId };
      setTracked((current) => [...stillShown(current), entry]);
      const forget = () => setTracked((current) => stillShown(current.filter((candidate) => candidate !== entry)));
      void (async () => {
        try {
          const response = await fetch(`/basket/${action}`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify({ productId }),
          });
          const body = (await response.json().catch(() => null)) as (Partial<ErrorBody> & { removed?: boolean }) | null;
          if (!response.ok) {
            forget();
            announce(body?.error?.message ?? UNKNOWN_ERROR, true);
            return;
          }
          if (action === "remove" && body?.removed === false) {
            // The spec's shop warns in the console when asked to remove what is not there.
            console.warn(`Can't remove product (id: ${productId}) as it's not in the basket.`);
          }
          const answeredWith = latestPageData.current;
          setTracked((current) => stillShown(current).map((candidate) => (candidate === entry ? { ...candidate, answeredWith } : candidate)));
          announce(action === "add" ? "Added to basket" : "Removed from basket", false);
          void revalidator.revalidate();
        } catch {
          forget();
          announce(NETWORK_ERROR, true);
        }
      })();
    },
    [announce, revalidator],
  );

  const value = useMemo(() => ({ pending, announcement, change }), [pending, announcement, change]);
  return <BasketContext.Provider value={value}>{children}</BasketContext.Provider>;
}

export function useBasket(): BasketState {
  const state = useContext(BasketContext);
  if (!state) throw new Error("useBasket must be used inside <BasketProvider>");
  return state;
}

/** The item count the shopper should see now: the server's count plus the changes still in flight. */
export function useOptimisticCount(serverCount: number): number {
  const { pending } = useBasket();
  const delta = pending.reduce((sum, entry) => sum + (entry.action === "add" ? 1 : -1), 0);
  return Math.max(0, serverCount + delta);
}

/** The items the shopper should see now: each pending removal hides the first remaining item with its id. */
export function useOptimisticItems<Item extends { product: { id: string } }>(items: readonly Item[]): Item[] {
  const { pending } = useBasket();
  const visible = [...items];
  for (const entry of pending) {
    if (entry.action !== "remove") continue;
    const index = visible.findIndex((item) => item.product.id === entry.productId);
    if (index >= 0) visible.splice(index, 1);
  }
  return visible;
}
