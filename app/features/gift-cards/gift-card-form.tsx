// A gift card product's form: amount, recipient, message and "Send on" day.

import { Form, useNavigation } from "react-router";
import { FieldError, invalidFieldProps } from "#app/components/form/field-error";
import { formatCents } from "#shared/money";
import { GIFT_CARD_MESSAGE_LIMIT } from "#shared/gift-cards";
import type { ProductDetails } from "#shared/catalogue";

/** What the product page's action answers a refused gift card form with: the sentences and what was typed. */
export interface GiftCardFormAnswer {
  form: "gift-card";
  errors: Partial<
    Record<"variantId" | "amount" | "recipientEmail" | "senderName" | "message" | "sendOn" | "form", string>
  >;
  values: Record<string, string>;
}

/**
 * A gift card's page: which value (its denominations, or "Amount" for any amount), "Recipient e-mail", "Your name",
 * "Message" and "Send on". A plain form post to the product page's action, with or without JavaScript; refusals come
 * back under their fields with what was typed.
 */
export function GiftCardForm({
  product,
  chosenId,
  answer,
}: {
  product: ProductDetails;
  chosenId: string;
  answer: GiftCardFormAnswer | undefined;
}) {
  const isBusy = useNavigation().state !== "idle";
  const errors = answer?.errors ?? {};
  const values = answer?.values ?? {};
  const field = (name: keyof GiftCardFormAnswer["errors"], ...hintIds: string[]) => ({
    id: `gift-card-${name}`,
    name,
    ...invalidFieldProps(`gift-card-${name}`, errors[name], ...hintIds),
  });
  return (
    <Form method="post" className="gift-card-form" noValidate>
      <input type="hidden" name="intent" value="add-gift-card" />
      <input type="hidden" name="productId" value={product.id} />
      {errors.form ? (
        <p className="field-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      {product.giftCard === "any_amount" ? (
        <p className="gift-card-form__field">
          <label htmlFor="gift-card-amount">Amount</label>
          <span className="gift-card-form__hint" id="gift-card-amount-hint">
            From $5 to $500
          </span>
          <input
            {...field("amount", "gift-card-amount-hint")}
            inputMode="decimal"
            maxLength={10}
            defaultValue={values.amount ?? ""}
          />
          <FieldError fieldId="gift-card-amount" message={errors.amount} />
          <input type="hidden" name="variantId" value={chosenId} />
        </p>
      ) : (
        <fieldset
          className="gift-card-form__values"
          aria-describedby={errors.variantId ? "gift-card-variantId-error" : undefined}
        >
          <legend>Value</legend>
          {product.variants.map((variant) => (
            <label key={variant.id} className="gift-card-form__value">
              <input
                type="radio"
                name="variantId"
                value={variant.id}
                defaultChecked={(values.variantId ?? chosenId) === variant.id}
              />
              {formatCents(variant.priceCents)}
            </label>
          ))}
          <FieldError fieldId="gift-card-variantId" message={errors.variantId} />
        </fieldset>
      )}
      <p className="gift-card-form__field">
        <label htmlFor="gift-card-recipientEmail">Recipient e-mail</label>
        <input
          {...field("recipientEmail")}
          type="email"
          inputMode="email"
          autoComplete="off"
          maxLength={254}
          defaultValue={values.recipientEmail ?? ""}
        />
        <FieldError fieldId="gift-card-recipientEmail" message={errors.recipientEmail} />
      </p>
      <p className="gift-card-form__field">
        <label htmlFor="gift-card-senderName">Your name</label>
        <input {...field("senderName")} autoComplete="name" maxLength={100} defaultValue={values.senderName ?? ""} />
        <FieldError fieldId="gift-card-senderName" message={errors.senderName} />
      </p>
      <p className="gift-card-form__field">
        <label htmlFor="gift-card-message">Message</label>
        <textarea
          {...field("message")}
          rows={3}
          maxLength={GIFT_CARD_MESSAGE_LIMIT}
          defaultValue={values.message ?? ""}
        />
        <FieldError fieldId="gift-card-message" message={errors.message} />
      </p>
      <p className="gift-card-form__field">
        <label htmlFor="gift-card-sendOn">Send on</label>
        <span className="gift-card-form__hint" id="gift-card-sendOn-hint">
          Optional: leave empty to send it when you have paid
        </span>
        <input {...field("sendOn", "gift-card-sendOn-hint")} type="date" defaultValue={values.sendOn ?? ""} />
        <FieldError fieldId="gift-card-sendOn" message={errors.sendOn} />
      </p>
      <button type="submit" className="button button--primary" disabled={isBusy}>
        Add to Basket
      </button>
    </Form>
  );
}
