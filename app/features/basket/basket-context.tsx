// The basket on the page: changes shown at once and sent one at a time, answers reconciled by revision with reloaded
// data so an item is never counted twice or lost.

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useRevalidator } from "react-router";
import type { BasketView } from "#shared/basket";
import { optionParam } from "#shared/catalogue";
import { lineAmountCents } from "#shared/line-amount";
import type { ErrorBody } from "#shared/errors";

/**
 * A change the shopper asks for. Removing and setting a quantity say what the line held as the shopper saw it, so
 * the header's count can move by the right number of items before the server answers.
 */
export type BasketChange =
  /**
   * optionValues: the product page's choice, sent as it is so the server finds the variant (variantId is then only
   * the variant the page expects, for the count and the lines shown meanwhile).
   */
  | { action: "add"; productId: string; variantId?: string; optionValues?: readonly string[] }
  | { action: "remove"; productId: string; variantId?: string; shownQuantity: number }
  | { action: "quantity"; productId: string; variantId?: string; quantity: number; shownQuantity: number };

/**
 * A basket change this page made. Until the server answers it has no revision; the answer gives the basket's
 * revision with the change in it, and the change is shown on top of any data read at an older revision.
 */
export type TrackedChange = BasketChange & {
  id: number;
  /** Whose basket it changed (the signed-in e-mail, or null for a guest): another owner's data never shows it. */
  owner: string | null;
  /** The basket's revision in the server's answer; undefined while the request is in flight. */
  revision?: number;
};

export interface Announcement {
  id: number;
  text: string;
  isError: boolean;
  /** The product whose form the failure belongs to: its sentence is shown next to that form, not at the top. */
  productId?: string;
  /** The path of the page it was made on: it is not carried onto the next page ("Added to basket" over the basket page). */
  on?: string;
}

/** A refusal read from the address after a form post without JavaScript (see BASKET_ERROR_PARAM). */
export interface FormError {
  text: string;
  productId: string | null;
}

interface BasketState {
  /** Changes made here that the layout's data may not show yet (see changesNotIn). */
  tracked: readonly TrackedChange[];
  owner: string | null;
  announcement: Announcement | null;
  formError: FormError | null;
  change(change: BasketChange): void;
}

/** How many items a change adds to the basket (negative: takes out), as the shopper saw the line when asking. */
export function itemsDelta(change: BasketChange): number {
  if (change.action === "add") return 1;
  if (change.action === "remove") return -change.shownQuantity;
  return change.quantity - change.shownQuantity;
}

/** The request body a change posts. */
function requestBody(change: BasketChange): Record<string, unknown> {
  if (change.action === "add" && change.optionValues)
    return {
      productId: change.productId,
      ...Object.fromEntries(change.optionValues.map((value, index) => [optionParam(index), value])),
    };
  const variant = change.variantId === undefined ? {} : { variantId: change.variantId };
  return change.action === "quantity"
    ? { productId: change.productId, ...variant, quantity: change.quantity }
    : { productId: change.productId, ...variant };
}

const SUCCESS_MESSAGES: Record<BasketChange["action"], string> = {
  add: "Added to basket",
  remove: "Removed from basket",
  quantity: "Quantity updated",
};

/** Where the page's basket data came from: whose basket, at which revision (see BasketView.revision). */
export interface BasketSnapshot {
  owner: string | null;
  revision: number;
}

/** The changes a view of the basket read at `snapshot` does not show yet: in flight, or answered at a later revision. */
export function changesNotIn(tracked: readonly TrackedChange[], snapshot: BasketSnapshot): TrackedChange[] {
  return tracked.filter(
    (entry) => entry.owner === snapshot.owner && (entry.revision === undefined || entry.revision > snapshot.revision),
  );
}

const BasketContext = createContext<BasketState | null>(null);

const NETWORK_ERROR =
  "We couldn't reach the shop, so your basket was not changed. Check your connection and try again.";
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
export function BasketProvider({
  snapshot,
  formError = null,
  children,
}: {
  snapshot: BasketSnapshot;
  formError?: FormError | null;
  children: ReactNode;
}) {
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

  const announce = useCallback((text: string, isError: boolean, productId?: string) => {
    setAnnouncement({
      id: ++nextId.current,
      text,
      isError,
      on: location.pathname,
      ...(productId === undefined ? {} : { productId }),
    });
  }, []);

  const change = useCallback(
    (request: BasketChange) => {
      const { action, productId } = request;
      const entry: TrackedChange = { ...request, id: ++nextId.current, owner: latestSnapshot.current.owner };
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
            body: JSON.stringify(requestBody(request)),
          });
          const body = (await response.json().catch(() => null)) as
            (Partial<ErrorBody> & { basket?: BasketView; removed?: boolean }) | null;
          if (!response.ok || typeof body?.basket?.revision !== "number") {
            settle(undefined);
            announce(body?.error?.message ?? UNKNOWN_ERROR, true, productId);
            return;
          }
          if (action === "remove" && body.removed === false) {
            // The shop has always warned in the console when asked to remove what is not there.
            console.warn(`Can't remove product (id: ${productId}) as it's not in the basket.`);
          }
          settle(body.basket.revision);
          // Asked for more than is available: the line keeps what there is, and the shopper is told beside it.
          const capped = body.basket.items.find((line) =>
            request.variantId ? line.variant.id === request.variantId : line.product.id === productId,
          )?.stockMessage;
          if (capped && action !== "remove") announce(capped, true, productId);
          else announce(SUCCESS_MESSAGES[action], false);
          void revalidator.revalidate();
        } catch {
          settle(undefined);
          announce(NETWORK_ERROR, true, productId);
        }
      });
    },
    [announce, revalidator],
  );

  // Read as the page renders, which every navigation makes it do (the layout's data is new): none on the server.
  const shown = announcement && announcement.on === location.pathname ? announcement : null;
  const value = useMemo(
    () => ({ tracked, owner: snapshot.owner, announcement: shown, formError, change }),
    [tracked, snapshot.owner, shown, formError, change],
  );
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
  const delta = changesNotIn(tracked, { owner, revision }).reduce((sum, entry) => sum + itemsDelta(entry), 0);
  return Math.max(0, serverCount + delta);
}

/**
 * The lines the shopper should see now: the changes the basket view does not show, applied in the order they were
 * made. A removal hides the product's line; a quantity or another add changes it. (An add of a product with no line
 * here shows up when the page's data does: this list has no product details to draw it with.)
 */
export function useOptimisticLines<
  Line extends { product: { id: string; priceCents: number }; quantity: number; lineCents: number },
>(lines: readonly Line[], revision: number): Line[] {
  const { tracked, owner } = useBasket();
  return applyChanges(lines, changesNotIn(tracked, { owner, revision }));
}

/** Applies changes, oldest first, to lines read from the server. */
export function applyChanges<
  Line extends {
    product: { id: string; priceCents: number };
    variant?: { id: string };
    quantity: number;
    lineCents: number;
  },
>(lines: readonly Line[], changes: readonly BasketChange[]): Line[] {
  let visible = [...lines];
  for (const change of changes) {
    // A change names its variant when the product has several; a product without options has one line.
    const line = visible.find((candidate) =>
      change.variantId ? candidate.variant?.id === change.variantId : candidate.product.id === change.productId,
    );
    if (!line) continue;
    if (change.action === "remove") {
      visible = visible.filter((candidate) => candidate !== line);
      continue;
    }
    const quantity = change.action === "add" ? line.quantity + 1 : change.quantity;
    visible = visible.map((candidate) =>
      candidate === line
        ? { ...line, quantity, lineCents: lineAmountCents(line.product.priceCents, quantity) }
        : candidate,
    );
  }
  return visible;
}

/**
 * The sentence for a failed change of this product, shown next to its form: the latest failure here, or the refusal
 * a form post without JavaScript came back with. Null when there is none.
 */
export function useBasketError(productId: string): string | null {
  const { announcement, formError } = useBasket();
  if (announcement) return announcement.isError && announcement.productId === productId ? announcement.text : null;
  return formError?.productId === productId ? formError.text : null;
}
