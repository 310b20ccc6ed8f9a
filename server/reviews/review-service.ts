// Reviews: who may review what, one per account and product, the product page's figures and pages, and the console's
// list with Hide and Show (audited).

import { sql } from "kysely";
import { jsonObjectFrom } from "kysely/helpers/postgres";
import type { DB, Writer } from "#server/db/client";
import { keysetCursor } from "#server/db/keyset-cursor";
import { recordAudit, type Actor } from "#server/audit/audit-log";
import { AppError } from "#shared/errors";
import { REVIEWABLE_ORDER_STATUSES } from "#shared/orders";
import {
  REVIEWS_PAGE_SIZE,
  reviewerNameFrom,
  type ReviewInput,
  type ReviewSummary,
  type ReviewView,
} from "#shared/reviews";

/** What the product page's review form needs to know about the signed-in shopper. */
export interface ReviewEligibility {
  canReview: boolean;
  /** Their review of this product, to edit; null when they have none. */
  existing: { rating: number; headline: string; body: string; isVisible: boolean } | null;
}

/** A review in the console's list. */
export interface ConsoleReview {
  id: string;
  productId: string;
  productTitle: string;
  productSlug: string;
  reviewerName: string;
  reviewerEmail: string;
  rating: number;
  headline: string;
  body: string;
  isVisible: boolean;
  createdAt: Date;
}

/** Pages of the console's list: (created_at, id) of the previous page's last review. */
const consoleCursor = keysetCursor(/^[0-9a-f-]{36}$/);
export const CONSOLE_REVIEWS_PAGE_SIZE = 50;

/**
 * Reviews: the only module that writes the reviews table. A product's review_count and review_average follow from
 * the rows by a trigger in the same transaction (migration 0020), and that write moves the catalogue's version, so
 * cards, search results and guests' kept pages show the new figures. `onCatalogueChanged` lets this instance see its
 * own write at once instead of at its next version check.
 */
/** A product's review figures from its visible reviews' count per star level (the product page reads them with it). */
export function summaryOfRatingCounts(rows: readonly { rating: number; count: number }[]): ReviewSummary {
  const starCounts: ReviewSummary["starCounts"] = [0, 0, 0, 0, 0];
  let count = 0;
  let sum = 0;
  for (const row of rows) {
    starCounts[row.rating - 1] = row.count;
    count += row.count;
    sum += row.rating * row.count;
  }
  return { count, average: count === 0 ? null : sum / count, starCounts };
}

export function createReviewService(
  db: DB,
  { onCatalogueChanged = () => {} }: { onCatalogueChanged?: () => void } = {},
) {
  /** The account's latest qualifying order containing the product, with the name it was delivered to. */
  async function qualifyingOrder(writer: Writer, userId: string, productId: string) {
    return writer
      .selectFrom("orders")
      .select(["id", sql<string | null>`delivery_address->>'name'`.as("delivery_name")])
      .where("user_id", "=", userId)
      .where("status", "in", REVIEWABLE_ORDER_STATUSES)
      .where(sql<boolean>`items @> ${JSON.stringify([{ productId }])}::jsonb`)
      .orderBy("paid_at", "desc")
      .limit(1)
      .executeTakeFirst();
  }

  return {
    /** Whether the account may review the product, and its review if it has one: one statement. */
    async eligibility(userId: string, productId: string): Promise<ReviewEligibility> {
      const row = await db
        .selectNoFrom((eb) => [
          eb
            .exists(
              eb
                .selectFrom("orders")
                .select("id")
                .where("user_id", "=", userId)
                .where("status", "in", REVIEWABLE_ORDER_STATUSES)
                .where(sql<boolean>`items @> ${JSON.stringify([{ productId }])}::jsonb`),
            )
            .as("can_review"),
          jsonObjectFrom(
            eb
              .selectFrom("reviews")
              .select(["rating", "headline", "body", "is_visible"])
              .where("user_id", "=", userId)
              .where("product_id", "=", productId),
          ).as("review"),
        ])
        .executeTakeFirstOrThrow();
      const review = row.review;
      return {
        canReview: row.can_review === true,
        existing: review
          ? { rating: review.rating, headline: review.headline, body: review.body, isVisible: review.is_visible }
          : null,
      };
    },

    /**
     * Writes the account's review of the product, or changes the one it wrote (one per account and product, by a
     * unique key, so two submissions at once leave one review). Refused, with nothing written, for a product that is
     * not sold or an account without a qualifying order.
     */
    async writeReview(userId: string, productId: string, input: ReviewInput): Promise<{ isNew: boolean }> {
      const result = await db.transaction().execute(async (trx) => {
        const product = await trx
          .selectFrom("products")
          .select("status")
          .where("id", "=", productId)
          .executeTakeFirst();
        if (!product || product.status !== "active") throw new AppError("NOT_FOUND", "There is no such product.");
        const order = await qualifyingOrder(trx, userId, productId);
        if (!order) throw new AppError("REVIEW_NOT_ELIGIBLE", "You can review products you have bought.");
        const written = await trx
          .insertInto("reviews")
          .values({
            product_id: productId,
            user_id: userId,
            order_id: order.id,
            rating: input.rating,
            headline: input.headline,
            body: input.body,
            reviewer_name: reviewerNameFrom(order.delivery_name),
          })
          .onConflict((conflict) =>
            conflict.columns(["user_id", "product_id"]).doUpdateSet({
              rating: input.rating,
              headline: input.headline,
              body: input.body,
              order_id: order.id,
              updated_at: sql`now()`,
            }),
          )
          .returning(sql<boolean>`xmax = 0`.as("inserted"))
          .executeTakeFirstOrThrow();
        return { isNew: written.inserted };
      });
      onCatalogueChanged();
      return result;
    },

    /** The same figures from the counts per star level a caller read (the product page, with the product). */
    summaryOf: summaryOfRatingCounts,

    /** The product's figures from its visible reviews: count, unrounded average, and the count per star level. */
    async summary(productId: string): Promise<ReviewSummary> {
      const rows = await db
        .selectFrom("reviews")
        .select(["rating", sql<number>`count(*)::int`.as("count")])
        .where("product_id", "=", productId)
        .where("is_visible", "=", true)
        .groupBy("rating")
        .execute();
      return summaryOfRatingCounts(rows);
    },

    /** One page (from 1) of the product's visible reviews, newest first. */
    async listReviews(productId: string, page: number): Promise<{ reviews: ReviewView[]; hasNext: boolean }> {
      const rows = await db
        .selectFrom("reviews")
        .select(["id", "rating", "headline", "body", "reviewer_name", "created_at"])
        .where("product_id", "=", productId)
        .where("is_visible", "=", true)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(REVIEWS_PAGE_SIZE + 1)
        .offset((page - 1) * REVIEWS_PAGE_SIZE)
        .execute();
      return {
        reviews: rows.slice(0, REVIEWS_PAGE_SIZE).map((row) => ({
          id: row.id,
          rating: row.rating,
          headline: row.headline,
          body: row.body,
          reviewerName: row.reviewer_name,
          createdAt: row.created_at.toISOString(),
        })),
        hasNext: rows.length > REVIEWS_PAGE_SIZE,
      };
    },

    /** The console's list: every review, hidden ones too, newest first, a page at a time. */
    async listForConsole(before: string | null): Promise<{ reviews: ConsoleReview[]; next: string | null }> {
      const query = db
        .selectFrom("reviews")
        .innerJoin("products", "products.id", "reviews.product_id")
        .innerJoin("users", "users.id", "reviews.user_id")
        .select([
          "reviews.id",
          "reviews.product_id",
          "products.title",
          "products.slug",
          "reviews.reviewer_name",
          "users.email",
          "reviews.rating",
          "reviews.headline",
          "reviews.body",
          "reviews.is_visible",
          "reviews.created_at",
        ]);
      const page = await consoleCursor.readPage(query, {
        after: before,
        pageSize: CONSOLE_REVIEWS_PAGE_SIZE,
        order: { at: "reviews.created_at", id: "reviews.id", idType: "uuid" },
        keyOf: (row) => ({ at: row.created_at, id: row.id }),
      });
      return {
        reviews: page.rows.map((row) => ({
          id: row.id,
          productId: row.product_id,
          productTitle: row.title,
          productSlug: row.slug,
          reviewerName: row.reviewer_name,
          reviewerEmail: row.email,
          rating: row.rating,
          headline: row.headline,
          body: row.body,
          isVisible: row.is_visible,
          createdAt: row.created_at,
        })),
        next: page.next,
      };
    },

    /** An operator hides or shows a review ("review.hide", "review.show" in the audit log, in the same transaction). */
    async setVisibility(actor: Actor, reviewId: string, isVisible: boolean): Promise<void> {
      if (!/^[0-9a-f-]{36}$/.test(reviewId)) throw new AppError("NOT_FOUND", "There is no such review.");
      await db.transaction().execute(async (trx) => {
        const review = await trx
          .selectFrom("reviews")
          .select(["id", "is_visible", "product_id"])
          .where("id", "=", reviewId)
          .forUpdate()
          .executeTakeFirst();
        if (!review) throw new AppError("NOT_FOUND", "There is no such review.");
        if (review.is_visible === isVisible) return;
        await trx.updateTable("reviews").set({ is_visible: isVisible }).where("id", "=", reviewId).execute();
        await recordAudit(trx, actor, {
          action: isVisible ? "review.show" : "review.hide",
          subject: reviewId,
          before: { visible: review.is_visible, productId: review.product_id },
          after: { visible: isVisible, productId: review.product_id },
        });
      });
      onCatalogueChanged();
    },
  };
}

export type ReviewService = ReturnType<typeof createReviewService>;
