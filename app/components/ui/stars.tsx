/** A rating as star emojis (spec), read out as a sentence rather than five "star" emoji names. */
export function Stars({ rating }: { rating: number }) {
  return (
    <span className="stars" role="img" aria-label={`Rated ${rating} out of 5`}>
      {"⭐".repeat(rating)}
    </span>
  );
}
