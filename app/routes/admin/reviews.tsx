// /admin/reviews: every review, newest first, with Hide and Show.

import { z } from "zod";
import type { Route } from "./+types/reviews";
import { formatConsoleTime, requireConsole } from "./require-operator";
import { productPath } from "#shared/catalogue";
import { AppError } from "#shared/errors";
import { fieldErrorsOf } from "#shared/form-errors";
import { readFormOrRefuse } from "#app/form-request";
import { ReviewPages, ReviewTable } from "#app/features/admin/reviews/review-table";

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
      <ReviewTable reviews={reviews} />
      <ReviewPages isFirstPage={isFirstPage} next={next} />
    </main>
  );
}
