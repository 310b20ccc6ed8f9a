// /admin/reviews: every review, newest first, with Hide and Show.

import { Form, Link } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/reviews";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { productPath } from "#shared/catalogue";
import { AppError } from "#shared/errors";
import { fieldErrorsOf } from "#shared/form-errors";
import { readFormOrRefuse } from "#app/form-request";

/** "Hide" or "Show" one review; unknown fields are refused. */
const visibilitySchema = z.strictObject({
  intent: z.enum(["hide", "show"], { error: "Choose Hide or Show." }),
  reviewId: z.uuid({ error: "There is no such review." }),
});

export async function loader({ context, request }: Route.LoaderArgs) {
  const { services } = requireConsole(context, "routes/admin/reviews");
  // Order and console times read in the shop's time zone: its setting, else SHOP_TIME_ZONE.
  const timeZone = await services.settings.timeZone();
  const before = new URL(request.url).searchParams.get("before");
  const page = await services.reviews.listForConsole(before && before.length <= 200 ? before : null);
  return {
    isFirstPage: !before,
    next: page.next,
    reviews: page.reviews.map((review) => ({
      ...review,
      createdAt: formatConsoleTime(review.createdAt, timeZone),
      productPath: productPath(review.productSlug),
    })),
  };
}

/** Hides a review (not shown, not counted in the product's rating) or shows it again; the audit log records either. */
export async function action({ context, request }: Route.ActionArgs) {
  const { services, actor } = requireConsole(context, "routes/admin/reviews", null);
  const parsed = visibilitySchema.safeParse(await readFormOrRefuse(request));
  if (!parsed.success) return { error: Object.values(fieldErrorsOf(parsed.error))[0] ?? "Please try again." };
  try {
    await services.reviews.setVisibility(actor, parsed.data.reviewId, parsed.data.intent === "show");
  } catch (error) {
    if (error instanceof AppError && error.code === "NOT_FOUND") return { error: error.message };
    throw error;
  }
  return { error: null };
}

export default function Reviews({ loaderData, actionData }: Route.ComponentProps) {
  const { reviews, next, isFirstPage } = loaderData;
  return (
    <main id="main" className="console-main">
      <title>Reviews | Console</title>
      <h1>Reviews</h1>
      <p>Customer reviews, newest first. A hidden review is neither shown nor counted in its product&apos;s rating.</p>
      {actionData?.error ? (
        <p role="alert" className="console-field__error">
          {actionData.error}
        </p>
      ) : null}
      {reviews.length === 0 ? (
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
      )}
      <nav className="console-pages" aria-label="Pages">
        {isFirstPage ? null : <Link to="/admin/reviews">Newest</Link>}
        {next ? <Link to={`/admin/reviews?before=${encodeURIComponent(next)}`}>Older reviews</Link> : null}
      </nav>
    </main>
  );
}
