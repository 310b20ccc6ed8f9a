/** A rating as star emojis, as the shop has always shown it, read out as a sentence, not five "star" emoji names. */
export function Stars({ rating }: { rating: number }) {
  return (
    <span className="stars" role="img" aria-label={`Rated ${rating} out of 5`}>
      {"⭐".repeat(rating)}
    </span>
  );
}
