// A product's reviews, newest first, their text as plain paragraphs.

import { Link } from "react-router";
import { Stars } from "#app/components/ui/stars";
import { formatReviewDate, type ReviewView } from "#shared/reviews";

/**
 * The reviews, newest first: stars, headline, the reviewer's first name and last initial, the date, "Verified
 * Purchase" (every review comes from a paid order), and the text as plain paragraphs (React escapes it: never markup).
 */
export function ReviewList({
  reviews,
  page,
  hasNext,
  basePath,
}: {
  reviews: ReviewView[];
  page: number;
  hasNext: boolean;
  basePath: string;
}) {
  if (reviews.length === 0) return null;
  return (
    <>
      <ol className="reviews__list">
        {reviews.map((review) => (
          <li key={review.id} className="review">
            <article aria-labelledby={`review-${review.id}-headline`}>
              <p className="review__author">{review.reviewerName}</p>
              <h3 id={`review-${review.id}-headline`} className="review__headline">
                <Stars rating={review.rating} /> <span>{review.headline}</span>
              </h3>
              <p className="review__meta">
                Reviewed on <time dateTime={review.createdAt}>{formatReviewDate(review.createdAt)}</time>
                {" · "}
                <span className="review__verified">Verified Purchase</span>
              </p>
              {review.body
                .split(/\n\s*\n/)
                .filter((paragraph) => paragraph.trim() !== "")
                .map((paragraph, index) => (
                  <p key={index} className="review__body">
                    {paragraph}
                  </p>
                ))}
            </article>
          </li>
        ))}
      </ol>
      {page > 1 || hasNext ? (
        <nav className="reviews__pages" aria-label="Review pages">
          {page > 1 ? (
            <Link to={page === 2 ? `${basePath}#reviews` : `${basePath}?page=${page - 1}#reviews`}>Newer reviews</Link>
          ) : null}
          {hasNext ? <Link to={`${basePath}?page=${page + 1}#reviews`}>Older reviews</Link> : null}
        </nav>
      ) : null}
    </>
  );
}
