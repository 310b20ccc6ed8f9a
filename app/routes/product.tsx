// /products/{slug}: a product's page, its options and "Add to Basket", its reviews, stock alerts and gift card form.

import { useState } from "react";
import { data, Link, redirect, useNavigate, type ShouldRevalidateFunctionArgs } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/product";
import { requestContext, type RequestContext } from "#app/context";
import {
  chooseOptionMessage,
  chooseVariant,
  describeOptionValues,
  descriptionParagraphs,
  NO_SUCH_COMBINATION_MESSAGE,
  optionValuesOf,
  productPath,
  resolveChosenVariant,
  VARIANT_PARAM,
  type ProductDetails,
} from "#shared/catalogue";
import { canBeSold } from "#shared/stock";
import { ProductForm } from "#app/features/catalogue/components/product-form";
import { productAnchorId } from "#shared/basket";
import { productSlugSchema } from "#shared/catalogue-schemas";
import { Price } from "#app/components/ui/price";
import { Stars } from "#app/components/ui/stars";
import { useServerDocument } from "#app/components/server-document";
import { KeptHtml } from "#app/components/kept-html";
import { Breadcrumbs } from "#app/features/catalogue/components/breadcrumbs";
import { ProductImage } from "#app/features/catalogue/components/product-image";
import { jsonForScriptElement, productStructuredData } from "#app/features/catalogue/product-structured-data";
import { ReviewForm, type ReviewFormAnswer, type ReviewFormState } from "#app/features/reviews/review-form";
import { ReviewList } from "#app/features/reviews/review-list";
import { ReviewSummaryPanel } from "#app/features/reviews/review-summary";
import { AppError } from "#shared/errors";
import { fieldErrorsOf } from "#shared/form-errors";
import { readFormOrRefuse } from "#app/form-request";
import { signInPath } from "#shared/local-path";
import { reviewFormSchema } from "#shared/review-schemas";
import { StockAlertForm } from "#app/features/catalogue/components/stock-alert-form";
import { stockAlertFormSchema } from "#shared/stock-alert-schemas";
import { NO_SUCH_VARIANT, type StockAlertAnswer } from "#shared/stock-alerts";
import { useShopName } from "#app/features/shell/use-shop-name";
import { GiftCardForm, type GiftCardFormAnswer } from "#app/features/gift-cards/gift-card-form";
import { giftCardLineSchema } from "#shared/gift-cards";

/** ?page=2…: a page of reviews; anything else is the first. */
const reviewPageSchema = z.coerce.number().int().min(1).max(1000).catch(1);

/** A product's own page. An old slug answers 301 to the current one; an archived product's page says so, as a 404. */
export async function loader({ context, params, request }: Route.LoaderArgs) {
  const { services, publicOrigin, shopper } = context.get(requestContext);
  const slug = productSlugSchema.safeParse(params.slug);
  if (!slug.success) throw data(null, { status: 404 });
  // Kept per catalogue version: the same for every shopper until what it says changes.
  const found = await services.catalogue.productPage(slug.data);
  switch (found.kind) {
    case "moved":
      throw redirect(productPath(found.slug), 301);
    case "unknown":
      throw data(null, { status: 404 });
    case "archived":
      return data({ kind: "archived" as const, title: found.title }, { status: 404 });
    case "product": {
      const { product, departmentIds, ratingCounts, firstReviews } = found;
      const search = new URL(request.url).searchParams;
      // The "Choose" button sent option values (and the form's other fields): the chosen variant's own address.
      const sent = optionValuesOf(product, search);
      const choice = sent.some((value) => value !== undefined) ? resolveChosenVariant(product, sent) : undefined;
      if (choice?.kind === "variant" && !search.has(VARIANT_PARAM))
        throw redirect(`${productPath(product.slug)}?${VARIANT_PARAM}=${encodeURIComponent(choice.variant.id)}`);
      const page = reviewPageSchema.parse(search.get("page") ?? undefined);
      const user = shopper.user;
      // The product came with its departments, review histogram and first page of reviews; whether the shopper may
      // write one (and a later page of reviews) is the second and last round trip, sent at once.
      const [reviews, eligibility, trail] = await Promise.all([
        page === 1 ? firstReviews : services.reviews.listReviews(product.id, page),
        // Without an order it may review (read with the session), the answer is known: not eligible.
        user && user.hasReviewableOrder !== false ? services.reviews.eligibility(user.id, product.id) : null,
        services.departments.trailOf(departmentIds),
      ]);
      const summary = services.reviews.summaryOf(ratingCounts);
      const reviewState: ReviewFormState = !user
        ? { kind: "guest", signInHref: signInPath(`${productPath(product.slug)}?review=write`) }
        : eligibility?.canReview
          ? { kind: "eligible", existing: eligibility.existing }
          : { kind: "not-eligible" };
      return {
        kind: "product" as const,
        product,
        trail,
        origin: publicOrigin,
        summary,
        reviews,
        page,
        reviewState,
        isFormOpen: search.get("review") === "write",
        isThanked: search.get("reviewed") === "1" && user !== null,
        // "Notify me when available" is filled in with the signed-in shopper's address.
        alertEmail: user?.email ?? "",
        // ?variant= (a shared link, a choice with JavaScript) or the "Choose" form's values (without it).
        chosenId: chooseVariant(product, search).id,
        choiceProblem:
          choice?.kind === "missing"
            ? chooseOptionMessage(choice.option)
            : choice?.kind === "unavailable"
              ? NO_SUCH_COMBINATION_MESSAGE
              : undefined,
      };
    }
  }
}

/**
 * The page's two forms. "Notify me when available" (intent stock-alert) answers where it stands; "Write a customer
 * review" writes (or changes) the signed-in shopper's review, then shows the page again.
 */
export async function action({ context, params, request }: Route.ActionArgs) {
  const { services, shopper, clientIp } = context.get(requestContext);
  const slug = productSlugSchema.safeParse(params.slug);
  if (!slug.success) throw data(null, { status: 404 });
  const found = await services.catalogue.findProductPage(slug.data);
  if (found.kind !== "product") throw data(null, { status: 404 });
  const fields = await readFormOrRefuse(request);
  if (fields.intent === "add-gift-card") return addGiftCard(found.product, fields, context.get(requestContext));
  if (fields.intent === "stock-alert") {
    const shownId = chooseVariant(found.product, new URL(request.url).searchParams).id;
    return askForStockAlert(found.product, shownId, fields, { services, user: shopper.user, clientIp });
  }
  const path = productPath(found.product.slug);
  const user = shopper.user;
  if (!user) return redirect(signInPath(`${path}?review=write`));
  const values = {
    rating: String(fields.rating ?? "").slice(0, 2),
    headline: String(fields.headline ?? "").slice(0, 200),
    body: String(fields.body ?? "").slice(0, 6000),
  };
  const parsed = reviewFormSchema.safeParse(fields);
  if (!parsed.success) return data<ReviewFormAnswer>({ errors: fieldErrorsOf(parsed.error), values }, { status: 400 });
  try {
    await services.reviews.writeReview(user.id, found.product.id, parsed.data);
  } catch (error) {
    if (error instanceof AppError && error.code === "REVIEW_NOT_ELIGIBLE")
      return data<ReviewFormAnswer>({ errors: { form: error.message }, values }, { status: 403 });
    throw error;
  }
  return redirect(`${path}?reviewed=1#reviews`);
}

/** A gift card's form: into the basket, then to the checkout; or the form again with each refusal under its field. */
async function addGiftCard(product: ProductDetails, fields: Record<string, string>, context: RequestContext) {
  const typed = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== "intent"));
  const values = Object.fromEntries(Object.entries(typed).map(([name, value]) => [name, value.slice(0, 300)]));
  const refuse = (errors: GiftCardFormAnswer["errors"], status: number) =>
    data<GiftCardFormAnswer>({ form: "gift-card", errors, values }, { status });
  if (!product.giftCard || typed.productId !== product.id) return refuse({ form: "This is not a gift card." }, 400);
  const parsed = giftCardLineSchema.safeParse({ message: "", sendOn: "", ...typed });
  if (!parsed.success) return refuse(fieldErrorsOf(parsed.error), 400);
  const { productId, variantId, amount, recipientEmail, senderName, message, sendOn } = parsed.data;
  try {
    await context.services.basket.addGiftCard(
      () => context.shopper.ensureBasketOwner(),
      productId,
      product.giftCard === "any_amount" ? undefined : variantId,
      { recipientEmail, senderName, message, sendOn, amountCents: amount ?? null },
    );
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = typeof error.details?.field === "string" ? error.details.field : "form";
    return refuse({ [field]: error.message }, error.status);
  }
  return redirect("/checkout");
}

/**
 * "Notify me when available" for one of this product's variants: the outcome, or the reason under the field (an
 * address that is not one or too long, a variant not of this product, too many alerts, a variant back already). The
 * answer names the variant it is about: the one asked for, or else the one the page shows (`shownId`).
 */
async function askForStockAlert(
  product: ProductDetails,
  shownId: string,
  fields: Record<string, string>,
  {
    services,
    user,
    clientIp,
  }: { services: RequestContext["services"]; user: RequestContext["shopper"]["user"]; clientIp: string },
) {
  const variantId = product.variants.some((variant) => variant.id === fields.variantId) ? fields.variantId! : shownId;
  const email = (fields.email ?? "").slice(0, 300);
  const refuse = (
    errors: Extract<StockAlertAnswer, { errors: unknown }>["errors"],
    status: number,
    headers?: HeadersInit,
  ) => data<StockAlertAnswer>({ form: "stock-alert", variantId, email, errors }, { status, headers });
  const parsed = stockAlertFormSchema.safeParse(fields);
  if (!parsed.success) {
    const errors = fieldErrorsOf(parsed.error);
    return refuse(
      errors.email ? { email: errors.email } : { form: errors.variantId ?? errors.form ?? NO_SUCH_VARIANT },
      400,
    );
  }
  if (parsed.data.variantId !== variantId) return refuse({ form: NO_SUCH_VARIANT }, 404);
  try {
    const outcome = await services.stockAlerts.subscribe({
      variantId: parsed.data.variantId,
      address: parsed.data.email,
      user,
      ip: clientIp,
    });
    return data<StockAlertAnswer>({ form: "stock-alert", variantId, email: parsed.data.email, outcome });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = error.details?.field === "email" ? "email" : "form";
    return refuse(
      { [field]: error.message },
      error.status,
      error.retryAfterSeconds ? { "Retry-After": String(error.retryAfterSeconds) } : undefined,
    );
  }
}

/** A refused alert's Retry-After (too many asked for) reaches the browser with the page. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
}

/** An alert asked for with JavaScript changes nothing the page shows but its own form: the page is not read again. */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formData?.get("intent") === "stock-alert" ? false : defaultShouldRevalidate;
}

/** The longest description a link preview or search result shows. */
const SUMMARY_LENGTH = 160;

export default function ProductPage({ loaderData, actionData }: Route.ComponentProps) {
  const shopName = useShopName();
  const nonce = useServerDocument()?.nonce;
  if (loaderData.kind === "archived") {
    return (
      <main id="main" className="status-page">
        <title>{`${loaderData.title} is no longer available | ${shopName}`}</title>
        <meta name="robots" content="noindex" />
        <h1>This product is no longer available</h1>
        <p>
          {loaderData.title} is no longer sold at {shopName}.
        </p>
        <Link className="button" to="/">
          Go to the home page
        </Link>
      </main>
    );
  }
  return <ProductDetailsPage {...loaderData} actionData={actionData} nonce={nonce} />;
}

function ProductDetailsPage({
  product,
  trail,
  origin,
  chosenId,
  choiceProblem,
  summary,
  reviews,
  page,
  reviewState,
  isFormOpen,
  isThanked,
  alertEmail,
  actionData,
  nonce,
}: Extract<Route.ComponentProps["loaderData"], { kind: "product" }> & {
  actionData: Route.ComponentProps["actionData"];
  nonce?: string;
}) {
  const shopName = useShopName();
  const navigate = useNavigate();
  // A choice shows at once; the address follows (replacing this entry), and a new answer from the server wins.
  const [choice, setChoice] = useState({ answeredWith: chosenId, id: chosenId });
  const shownId = choice.answeredWith === chosenId ? choice.id : chosenId;
  const variant = product.variants.find((candidate) => candidate.id === shownId) ?? product.variants[0]!;
  const hasOptions = product.options.length > 0;
  const isSellable = canBeSold(variant.stock);
  // The page's two forms answer through the same action data: each reads its own.
  const alertAnswer = actionData && "form" in actionData && actionData.form === "stock-alert" ? actionData : undefined;
  const giftCardAnswer = actionData && "form" in actionData && actionData.form === "gift-card" ? actionData : undefined;
  const reviewAnswer = actionData && !("form" in actionData) ? actionData : undefined;
  const pageUrl = new URL(productPath(product.slug), origin).href;
  const imageUrl = new URL(product.image.src, origin).href;
  const paragraphs = descriptionParagraphs(product.description);
  const firstParagraph = paragraphs[0] ?? product.title;
  const description =
    firstParagraph.length > SUMMARY_LENGTH
      ? `${firstParagraph.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…`
      : firstParagraph;
  return (
    <main id="main" className="product-page">
      <title>{`${product.title} | ${shopName}`}</title>
      <meta name="description" content={description} />
      <link rel="canonical" href={pageUrl} />
      <meta property="og:type" content="product" />
      <meta property="og:site_name" content={shopName} />
      <meta property="og:title" content={product.title} />
      <meta property="og:description" content={description} />
      <meta property="og:url" content={pageUrl} />
      <meta property="og:image" content={imageUrl} />
      <meta property="og:image:width" content={String(product.image.width)} />
      <meta property="og:image:height" content={String(product.image.height)} />
      <script
        type="application/ld+json"
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{
          __html: jsonForScriptElement(
            productStructuredData(
              product,
              pageUrl,
              imageUrl,
              description,
              {
                summary,
                latest: page === 1 ? reviews.reviews : [],
              },
              shopName,
            ),
          ),
        }}
      />
      {trail.length > 0 ? <Breadcrumbs trail={trail} origin={origin} /> : null}
      {/* Every product picture is drawn at one size (400 × 400 WebP), so there is no srcset to choose from. */}
      <ProductImage
        product={{ ...product, image: variant.image ?? product.image }}
        alt={
          variant.image
            ? `${product.title} (${describeOptionValues(
                product.options.map((option) => option.name),
                variant.optionValues,
              )})`
            : product.title
        }
        className="product-page__image"
        load="first"
        sizes="(max-width: 440px) calc(100vw - 40px), 400px"
      />
      {/* The anchor a form post's answer returns to (#product-…), as on the cards of the home page. */}
      <div id={productAnchorId(product.id)} className="product-page__details">
        {/* The same for every shopper at this address until the catalogue moves on: rendered once, then kept. */}
        <KeptHtml name="product-details" source={product} isKeepable={actionData === undefined}>
          <h1 className="product-page__title">{product.title}</h1>
          <p className="product-page__rating">
            <Stars rating={product.rating} count={product.ratingCount} />
          </p>
          <p className="product-page__price" data-testid="product-price">
            <Price cents={variant.priceCents} />
          </p>
          {variant.compareAtCents !== null && variant.compareAtCents > variant.priceCents ? (
            <p className="product-page__list-price">
              List Price:{" "}
              <s>
                <Price cents={variant.compareAtCents} />
              </s>
            </p>
          ) : null}
          {product.giftCard ? (
            <GiftCardForm product={product} chosenId={variant.id} answer={giftCardAnswer} />
          ) : (
            <ProductForm
              product={product}
              chosen={variant}
              {...(choiceProblem ? { choiceProblem } : {})}
              onChoose={(next) => {
                setChoice({ answeredWith: chosenId, id: next.id });
                void navigate(`${productPath(product.slug)}?${VARIANT_PARAM}=${encodeURIComponent(next.id)}`, {
                  replace: true,
                  preventScrollReset: true,
                });
              }}
            />
          )}
        </KeptHtml>
        {/* Also after a plain post about a variant that came back meanwhile: the form says so under its field. */}
        {!isSellable || alertAnswer?.variantId === variant.id ? (
          <StockAlertForm
            key={variant.id}
            action={
              hasOptions
                ? `${productPath(product.slug)}?${VARIANT_PARAM}=${encodeURIComponent(variant.id)}`
                : productPath(product.slug)
            }
            variantId={variant.id}
            defaultEmail={alertEmail}
            answer={alertAnswer}
          />
        ) : null}
        <KeptHtml name="product-description" source={product}>
          <section className="product-page__description" aria-labelledby="product-description">
            <h2 id="product-description">About this item</h2>
            {paragraphs.map((paragraph, index) => (
              <p key={index}>{paragraph}</p>
            ))}
          </section>
        </KeptHtml>
      </div>
      <section id="reviews" className="reviews" aria-labelledby="reviews-title">
        <h2 id="reviews-title">Customer reviews</h2>
        {isThanked ? (
          <p className="reviews__thanks" role="status">
            Thank you: your review is saved.
          </p>
        ) : null}
        <KeptHtml name="product-review-summary" source={product}>
          <ReviewSummaryPanel summary={summary} />
        </KeptHtml>
        <ReviewForm state={reviewState} answer={reviewAnswer} isOpen={isFormOpen} />
        <KeptHtml name="product-reviews" source={product}>
          <ReviewList
            reviews={reviews.reviews}
            page={page}
            hasNext={reviews.hasNext}
            basePath={productPath(product.slug)}
          />
        </KeptHtml>
      </section>
    </main>
  );
}
