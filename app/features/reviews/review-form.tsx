// "Write a customer review" on the product page, for a shopper who may review it.

import { useEffect, useRef } from "react";
import { Form, Link } from "react-router";
import { REVIEW_BODY_MAX, REVIEW_HEADLINE_MAX, REVIEW_NOT_ELIGIBLE } from "#shared/reviews";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import type { FieldErrors } from "#shared/form-errors";

/** What the product page knows about the reader and reviewing this product. */
export type ReviewFormState =
  | { kind: "guest"; signInHref: string }
  | { kind: "not-eligible" }
  | { kind: "eligible"; existing: { rating: number; headline: string; body: string; isVisible: boolean } | null };

export interface ReviewFormAnswer {
  errors: FieldErrors;
  values: { rating: string; headline: string; body: string };
}

/**
 * "Write a customer review": a plain form posted to the product page (it works without JavaScript), with the
 * error of each field under it. Anybody without a qualifying order reads why they cannot review instead.
 */
export function ReviewForm({
  state,
  answer,
  isOpen,
}: {
  state: ReviewFormState;
  answer: ReviewFormAnswer | undefined;
  isOpen: boolean;
}) {
  const errorSummary = useRef<HTMLParagraphElement>(null);
  const errors = answer?.errors ?? {};
  useEffect(() => {
    if (answer && Object.keys(answer.errors).length > 0) errorSummary.current?.focus();
  }, [answer]);

  if (state.kind !== "eligible") {
    return (
      <div id="write-review" className="review-form">
        <h3 className="review-form__title">Write a customer review</h3>
        <p>{REVIEW_NOT_ELIGIBLE}</p>
        {state.kind === "guest" ? (
          <p>
            <Link to={state.signInHref}>Sign in</Link> to review a product you bought.
          </p>
        ) : null}
      </div>
    );
  }
  const values = answer?.values ?? {
    rating: state.existing ? String(state.existing.rating) : "",
    headline: state.existing?.headline ?? "",
    body: state.existing?.body ?? "",
  };
  const described = (name: string) => invalidFieldProps(`review-${name}`, errors[name]);
  const errorOf = (name: string) => (
    <FieldError fieldId={`review-${name}`} message={errors[name]} className="review-form__error" />
  );
  return (
    <details id="write-review" className="review-form" open={isOpen || answer !== undefined}>
      <summary className="review-form__title">Write a customer review</summary>
      {state.existing ? (
        <p className="review-form__note">
          You have reviewed this product. Submitting changes your review
          {state.existing.isVisible ? "" : " (it is hidden by the shop)"}.
        </p>
      ) : null}
      {Object.keys(errors).length > 0 ? (
        <p ref={errorSummary} tabIndex={-1} className="review-form__problem" role="alert">
          Please correct the review below.
        </p>
      ) : null}
      <FieldError fieldId="review-form" message={errors.form} className="review-form__error" />
      <Form method="post" className="review-form__form" preventScrollReset>
        <input type="hidden" name="intent" value="review" />
        <fieldset className="review-form__rating" {...described("rating")}>
          <legend>Overall rating</legend>
          {[1, 2, 3, 4, 5].map((stars) => (
            <label key={stars} className="review-form__star">
              <input
                type="radio"
                name="rating"
                value={String(stars)}
                defaultChecked={values.rating === String(stars)}
                required
              />
              {stars === 1 ? "1 star" : `${stars} stars`}
            </label>
          ))}
        </fieldset>
        {errorOf("rating")}
        <label htmlFor="review-headline">Add a headline</label>
        <input
          id="review-headline"
          name="headline"
          type="text"
          maxLength={REVIEW_HEADLINE_MAX}
          defaultValue={values.headline}
          required
          {...described("headline")}
        />
        {errorOf("headline")}
        <label htmlFor="review-body">Add a written review</label>
        <textarea
          id="review-body"
          name="body"
          rows={6}
          maxLength={REVIEW_BODY_MAX}
          defaultValue={values.body}
          {...described("body")}
        />
        {errorOf("body")}
        <button type="submit" className="button review-form__submit">
          Submit
        </button>
      </Form>
    </details>
  );
}
