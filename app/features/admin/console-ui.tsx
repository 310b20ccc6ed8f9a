/**
 * The console's shared pieces, for every console page (app/styles/console.css draws them): a page header with the
 * page's main action, status badges, product thumbnails. A new page takes these rather than its own markup.
 */

import type { ReactNode } from "react";

/** The page's title and, at its right (below it on a phone), the one thing the page is mostly for. */
export function PageHeader({ title, action, children }: { title: string; action?: ReactNode; children?: ReactNode }) {
  return (
    <header className="console-page-header">
      <div className="console-page-header__text">
        <h1>{title}</h1>
        {children}
      </div>
      {action ? <div className="console-page-header__action">{action}</div> : null}
    </header>
  );
}

/** How a badge is coloured: what the state asks of the operator. */
export type BadgeTone = "good" | "waiting" | "bad" | "neutral";

const TONES: Record<string, BadgeTone> = {
  active: "good",
  paid: "good",
  shipped: "good",
  sent: "good",
  logged: "good",
  pending: "waiting",
  partially_refunded: "waiting",
  unfulfilled: "waiting",
  partially_returned: "waiting",
  returned: "neutral",
  disputed: "bad",
  failed: "bad",
  refunded: "neutral",
  cancelled: "neutral",
  archived: "neutral",
  // A CSV import's outcomes, product by product, and its pictures.
  created: "good",
  updated: "good",
  unchanged: "neutral",
  error: "bad",
  stored: "good",
};

/** A state in words inside a coloured badge; the words carry the meaning, the colour only repeats it. */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`console-badge console-badge--${TONES[status] ?? "neutral"}`}>
      {label ?? status.replaceAll("_", " ")}
    </span>
  );
}

/** A product's picture at table size; decorative beside the product's title, so no alternative text. */
export function Thumbnail({ src }: { src: string }) {
  return <img className="console-thumbnail" src={src} width={40} height={40} alt="" loading="lazy" decoding="async" />;
}
