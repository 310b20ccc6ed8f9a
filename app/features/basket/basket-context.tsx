import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useRevalidator } from "react-router";
import type { BasketAction, BasketView } from "../../../shared/basket";
import type { ErrorBody } from "../../../shared/errors";

/**
 * A basket change this page made. Until the server answers it has no revision; the answer gives the basket's
 * revision with the change in it, and the change is shown on top of any data read at an older revision.
 */
export interface TrackedChange {
  id: number;
  action: Exclude<BasketAction, "empty">;
  productId: string;
  /** Whose basket it changed (the signed-in e-mail, or null for a guest): another owner's data never shows it. */
  owner: string | null;
  /** The basket's revision in the server's answer; undefined while the request is in flight. */
  revision?: number;
}

export interface Announcement {
  id: number;
  text: string;
  isError: boolean;
}

interface BasketState {
  /** Changes made here that the layout's data may not show yet (see changesNotIn). */
  tracked: readonly TrackedChange[];
  owner: string | null;
  announcement: Announcement | null;
  change(action: TrackedChange["action"], productId: string): void;
}

/** Where the page's basket data came from: whose basket, at which revision (see BasketView.revision). */
export interface BasketSnapshot {
  owner: string | null;
  revision: number;
}

/** The changes a view of the basket read at `snapshot` does not show yet: in flight, or answered at a later revision. */
export function changesNotIn(tracked: readonly TrackedChange[], snapshot: BasketSnapshot): TrackedChange[] {
  return tracked.filter((entry) => entry.owner === snapshot.owner && (entry.revision === undefined || entry.revision > snapshot.revision));
}

const BasketContext = createContext<BasketState | null>(null);

const NETWORK_ERROR = "We couldn't reach the shop, so your basket was not changed. Check your connection and try again.";
const UNKNOWN_ERROR = "Your basket could not be changed. Please try again.";

/**
 * The enhanced basket: with JavaScript, buttons post JSON instead of navigating. Each change shows at once
 * (optimistic count and list), then the server's answer wins: the page's loaders are revalidated, and a refusal or
 * a network failure rolls the change back and says why.
 *
 * Which changes a piece of data already shows is decided by the basket's revision, not by timing: revalidations
 * can overlap, be interrupted (a tab regaining focus) or finish in any order, and loaders read the database at
 * their own moments. A change answered at revision r is shown on data read at a revision below r, and never on
 * data at r or later, so nothing is counted twice or lost, whatever order the data arrives in.
 */
export function BasketProvider({ snapshot, children }: { snapshot: BasketSnapshot; children: ReactNode }) {
  const [tracked, setTracked] = useState<TrackedChange[]>([]);
  const [announcement, setAnnouncement] = useState<Announcement | null>(null);
  const revalidator = useRevalidator();
  const nextId = useRef(0);
  const queue = useRef<Promise<void>>(Promise.resolve());
  // Read when a change starts or is answered, to forget changes the layout's data already shows.
  const latestSnapshot = useRef(snapshot);
  useEffect(() => {
    latestSnapshot.current = snapshot;
  });
  const stillNeeded = (entries: TrackedChange[]) => changesNotIn(entries, latestSnapshot.current);

  const announce = useCallback((text: string, isError: boolean) => {
    setAnnouncement({ id: ++nextId.current, text, isError });
  }, []);

  const change = useCallback(
    (action: TrackedChange["action"], productId: string) => {
      const entry: TrackedChange = { id: ++nextId.current, action, productId, owner: latestSnapshot.current.owner };
      setTracked((current) => [...stillNeeded(current), entry]);
      // Answered: the change carries its revision from now on. Refused or failed (no revision): it is rolled back.
      const settle = (revision: number | undefined) =>
        setTracked((current) =>
          stillNeeded(
            current.flatMap((candidate) => {
              if (candidate !== entry) return [candidate];
              return revision === undefined ? [] : [{ ...entry, revision }];
            }),
          ),
        );
      // One request at a time, in the order of the clicks: a remove must not overtake the add before it, and a
      // browser's first two adds must not each start a guest session of their own (the first answer sets the cookie).
      queue.current = queue.current.then(async () => {
        try {
          const response = await fetch(`/basket/${action}`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify({ productId }),
          });
          const body = (await response.json().catch(() => null)) as (Partial<ErrorBody> & { basket?: BasketView; removed?: boolean }) | null;
          if (!response.ok || typeof body?.basket?.revision !== "number") {
            settle(undefined);
            announce(body?.error?.message ?? UNKNOWN_ERROR, true);
            return;
          }
          if (action === "remove" && body.removed === false) {
            // The spec's shop warns in the console when asked to remove what is not there.
            console.warn(`Can't remove product (id: ${productId}) as it's not in the basket.`);
          }
          settle(body.basket.revision);
          announce(action === "add" ? "Added to basket" : "Removed from basket", false);
          void revalidator.revalidate();
        } catch {
          settle(undefined);
          announce(NETWORK_ERROR, true);
        }
      });
    },
    [announce, revalidator],
  );

  const value = useMemo(() => ({ tracked, owner: snapshot.owner, announcement, change }), [tracked, snapshot.owner, announcement, change]);
  return <BasketContext.Provider value={value}>{children}</BasketContext.Provider>;
}

export function useBasket(): BasketState {
  const state = useContext(BasketContext);
  if (!state) throw new Error("useBasket must be used inside <BasketProvider>");
  return state;
}

/** True while a change made here waits for the server's answer. */
export function useBasketSaving(): boolean {
  return useBasket().tracked.some((entry) => entry.revision === undefined);
}

/** The item count the shopper should see now: the server's count at `revision`, plus the changes it does not show. */
export function useOptimisticCount(serverCount: number, revision: number): number {
  const { tracked, owner } = useBasket();
  const delta = changesNotIn(tracked, { owner, revision }).reduce((sum, entry) => sum + (entry.action === "add" ? 1 : -1), 0);
  return Math.max(0, serverCount + delta);
}

/** The items the shopper should see now: each removal the basket view does not show hides the first item with its id. */
export function useOptimisticItems<Item extends { product: { id: string } }>(items: readonly Item[], revision: number): Item[] {
  const { tracked, owner } = useBasket();
  const visible = [...items];
  for (const entry of changesNotIn(tracked, { owner, revision })) {
    if (entry.action !== "remove") continue;
    const index = visible.findIndex((item) => item.product.id === entry.productId);
    if (index >= 0) visible.splice(index, 1);
  }
  return visible;
}
