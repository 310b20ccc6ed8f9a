// A part of a page rendered once per address and catalogue version and sent again as HTML to every shopper.

import type { ReactNode } from "react";
import { preload } from "react-dom";
import { useLocation } from "react-router";
import { useServerDocument } from "./server-document";

interface KeptHtmlProps {
  name: string;
  source: object;
  isKeepable?: boolean;
  children: ReactNode;
}

/** On the server: the kept HTML when there is some for this part, else the part rendered (and kept by entry.server). */
function ServerKeptHtml({ name, source, isKeepable = true, children }: KeptHtmlProps) {
  const keeper = useServerDocument()?.keptHtml;
  const { pathname, search } = useLocation();
  // The wrapper takes no room in the layout (display: contents): the part's elements sit where they always did.
  if (keeper && isKeepable) {
    const kept = keeper.find(source, name, `${pathname}${search}`);
    if (kept) {
      // React preloads a page's first pictures from their <img> as it renders them; kept, they are asked for here.
      for (const image of kept.images) {
        preload(image.src, {
          as: "image",
          ...(image.srcSet ? { imageSrcSet: image.srcSet, imageSizes: image.sizes } : {}),
          ...(image.fetchPriority ? { fetchPriority: image.fetchPriority } : {}),
        });
      }
      return <div data-kept={name} dangerouslySetInnerHTML={{ __html: kept.html }} />;
    }
  }
  return <div data-kept={name}>{children}</div>;
}

/** In the browser: the part rendered, always, in the same wrapper. */
function BrowserKeptHtml({ name, children }: KeptHtmlProps) {
  return <div data-kept={name}>{children}</div>;
}

/**
 * A part of a page that is the same for every shopper who asks for the same address while the data it shows is
 * unchanged (the home page's shelves, a product's details, a search's results): on the server its HTML is kept from
 * the first render and sent again as it was, so only the shopper's own parts (the header, the review form) are
 * rendered per request. The browser always renders the children: the kept HTML is what that same render produced in
 * the same place, so hydration finds exactly what it would have found (docs/decisions/039).
 *
 * `source` is the kept data the part is drawn from (an object the catalogue keeps per version, by identity): when
 * the catalogue moves on, a new object stands for the new data and the old HTML goes with the old object. Everything
 * else the part shows must follow from the page's address. `name` is unique on the page. A part that shows an answer
 * to a form (action data) or anything else of one shopper's is not kept: `isKeepable` false.
 *
 * The browser's bundle carries only its own half (Vite sets import.meta.env.SSR at build time): the keeping is the
 * server's, and the home page's scripts are held to a budget.
 */
export const KeptHtml = import.meta.env.SSR ? ServerKeptHtml : BrowserKeptHtml;
