import { toHalfStar } from "#shared/reviews";

/**
 * A rating as star emojis, as the shop has always shown it, drawn to the nearest half star (a half is the emoji cut in two), read out as a
 * sentence rather than five "star" emoji names. With `count` (reviews behind an average) the count follows; a
 * catalogue rating has none.
 */
export function Stars({ rating, count }: { rating: number; count?: number }) {
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
