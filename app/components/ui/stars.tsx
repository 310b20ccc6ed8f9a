// A rating as stars to the nearest half, read out as a sentence, with the count of ratings behind it.

import { toHalfStar } from "#shared/reviews";

/**
 * A rating as star emojis, as the shop has always shown it, drawn to the nearest half star (a half is the emoji cut in two), read out as a
 * sentence rather than five "star" emoji names. With `count` (the reviews or imported ratings behind it) the count
 * follows; the specification's own ratings have none. No rating, no stars: nothing is drawn.
 */
export function Stars({ rating, count }: { rating: number | null; count?: number }) {
  if (rating === null) return null;
  const shown = toHalfStar(rating);
  const whole = Math.floor(shown);
  const hasHalf = shown > whole;
  const label = `Rated ${shown} out of 5`;
  return (
    <>
      <span className="stars" role="img" aria-label={label}>
        {"⭐".repeat(whole)}
        {hasHalf ? <span className="stars__half">⭐</span> : null}
      </span>
      {count ? (
        <span className="stars__count">
          {" "}
          ({count}
          <span className="visually-hidden">{count === 1 ? " rating" : " ratings"}</span>)
        </span>
      ) : null}
    </>
  );
}
