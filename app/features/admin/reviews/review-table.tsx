// The console's reviews as a table, newest first: product, reviewer, stars, the review (long ones cut), whether it is
// shown, and Hide or Show; and the links between its pages.

import { Form, Link } from "react-router";

/** A review as the loader words it. */
export interface ConsoleReviewRow {
  id: string;
  createdAt: string;
  productPath: string;
  productTitle: string;
  reviewerName: string;
  reviewerEmail: string;
  rating: number;
  headline: string;
  body: string;
  isVisible: boolean;
}

/** The table, or "No reviews yet." */
export function ReviewTable({ reviews }: { reviews: ConsoleReviewRow[] }) {
  return reviews.length === 0 ? (
    <p>No reviews yet.</p>
  ) : (
    <table className="console-table">
      <thead>
        <tr>
          <th scope="col">Written</th>
          <th scope="col">Product</th>
          <th scope="col">Reviewer</th>
          <th scope="col" className="console-number">
            Stars
          </th>
          <th scope="col">Review</th>
          <th scope="col">State</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        {reviews.map((review) => (
          <tr key={review.id} data-testid="console-review">
            <td>{review.createdAt}</td>
            <td>
              <Link to={review.productPath}>{review.productTitle}</Link>
            </td>
            <td>
              {review.reviewerName}
              <br />
              {review.reviewerEmail}
            </td>
            <td className="console-number">{review.rating}</td>
            <td>
              <strong>{review.headline}</strong>
              <br />
              {review.body.length > 300 ? `${review.body.slice(0, 299)}…` : review.body}
            </td>
            <td>{review.isVisible ? "Shown" : "Hidden"}</td>
            <td>
              <Form method="post">
                <input type="hidden" name="reviewId" value={review.id} />
                <button
                  type="submit"
                  name="intent"
                  value={review.isVisible ? "hide" : "show"}
                  className="console-button"
                  aria-label={`${review.isVisible ? "Hide" : "Show"} the review "${review.headline}"`}
                >
                  {review.isVisible ? "Hide" : "Show"}
                </button>
              </Form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "Newest" back to the first page, "Older reviews" past the last review shown. */
export function ReviewPages({ isFirstPage, next }: { isFirstPage: boolean; next: string | null }) {
  return (
    <nav className="console-pages" aria-label="Pages">
      {isFirstPage ? null : <Link to="/admin/reviews">Newest</Link>}
      {next ? <Link to={`/admin/reviews?before=${encodeURIComponent(next)}`}>Older reviews</Link> : null}
    </nav>
  );
}
