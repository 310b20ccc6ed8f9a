// The shop's inline icons and wordmark: no icon font, no request, hidden from screen readers.

/** Inline icons: no icon font, no request. Decorative, so hidden from screen readers. */
export function SearchIcon() {
  return (
    <svg
      aria-hidden="true"
      width="20"
      height="20"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
    >
      <circle cx="10.5" cy="10.5" r="6.5" />
      <path d="m15.5 15.5 5 5" />
    </svg>
  );
}

export function BasketIcon() {
  return (
    <svg
      aria-hidden="true"
      width="34"
      height="30"
      viewBox="0 0 34 30"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.2"
      strokeLinejoin="round"
      strokeLinecap="round"
    >
      <path d="M2 4h5l4 16h16l4-11H9" />
      <circle cx="13" cy="25.5" r="2" />
      <circle cx="25" cy="25.5" r="2" />
    </svg>
  );
}

export function ChevronIcon({ direction }: { direction: "left" | "right" }) {
  return (
    <svg
      aria-hidden="true"
      width="28"
      height="28"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={direction === "left" ? "m15 5-7 7 7 7" : "m9 5 7 7-7 7"} />
    </svg>
  );
}

/**
 * The shop's wordmark: a basket and "storefront", drawn inline. As an <img> of an SVG file it cost the browser an
 * isolated SVG document of its own, 20–25 ms of main thread on every page on our test machine (80–100 ms under
 * Lighthouse's 4× CPU slowdown); inline it is part of the page. Its size and the text's colour (currentColor) come
 * from the stylesheet, per place. Decorative: the link around it carries the name.
 */
export function Wordmark() {
  return (
    <svg aria-hidden="true" className="wordmark" viewBox="0 0 200 48">
      <path d="M12 22c0-12 20-12 20 0" fill="none" stroke="#f0c14b" strokeWidth="3.2" strokeLinecap="round" />
      <path
        d="M5 21.5h34a1.6 1.6 0 0 1 1.6 2L36.4 40a3 3 0 0 1-2.9 2.3H10.5a3 3 0 0 1-2.9-2.3L3.4 23.5a1.6 1.6 0 0 1 1.6-2z"
        fill="#f5b04f"
      />
      <path
        d="M14.5 27l1.2 10M22 27v10M29.5 27l-1.2 10"
        stroke="#131921"
        strokeOpacity=".55"
        strokeWidth="2.2"
        strokeLinecap="round"
      />
      <text
        x="47"
        y="32"
        fill="currentColor"
        fontFamily="system-ui,sans-serif"
        fontSize="25"
        fontWeight="700"
        letterSpacing="-.6"
      >
        storefront
      </text>
    </svg>
  );
}
