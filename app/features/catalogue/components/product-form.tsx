// The product page's form: its options, the chosen variant's availability and "Add to Basket".

import type { FormEvent } from "react";
import { useEarlyInput } from "#app/components/form/early-input";
import { useIsEnhanced } from "#app/components/ui/use-is-enhanced";
import { useBasket } from "#app/features/basket/basket-context";
import { useReturnPath } from "#app/features/basket/components/basket-button";
import { BasketError, basketErrorId } from "#app/features/basket/components/basket-error";
import {
  findVariantByValues,
  optionParam,
  productPath,
  resolveChosenVariant,
  type ProductDetails,
  type ProductVariant,
} from "#shared/catalogue";
import { availabilityOf, availabilitySentence, canBeSold } from "#shared/stock";

/**
 * The product page's one form: its options (one radio group per option, a fieldset whose legend is the option's
 * name), the chosen variant's availability and "Add to Basket", which posts the chosen values; the server finds the
 * variant ("Choose a {option}." for one left out, "This combination is not available." for none). Without
 * JavaScript, "Choose" shows the chosen variant's price and availability without adding it (a GET of the product's
 * page); with JavaScript a choice shows at once (`onChoose`). A value whose variant (with the other values as
 * chosen) has no stock left is still selectable, and says "(out of stock)".
 */
export function ProductForm({
  product,
  chosen,
  choiceProblem,
  onChoose,
}: {
  product: Pick<ProductDetails, "id" | "slug" | "options" | "variants">;
  chosen: ProductVariant;
  /** Why the values the "Choose" button sent show no variant, if they did not. */
  choiceProblem?: string;
  onChoose: (variant: ProductVariant) => void;
}) {
  const { change } = useBasket();
  const returnTo = useReturnPath();
  const isEnhanced = useIsEnhanced();
  const { options, variants } = product;
  const hasOptions = options.length > 0;
  const isSellable = canBeSold(chosen.stock);

  // Options chosen while the page was starting (shown, its script not yet running) are the choice now.
  useEarlyInput(`product-${product.id}`, (early) => {
    const values = options.map((_, index) => early.get(optionParam(index)) ?? chosen.optionValues[index]!);
    const variant = findVariantByValues(variants, values);
    if (variant && variant.id !== chosen.id) onChoose(variant);
  });

  /** The variant a choice of `value` for option `index` leads to: the others kept, or the first with that value. */
  const variantFor = (index: number, value: string): ProductVariant | undefined => {
    const values = chosen.optionValues.map((current, position) => (position === index ? value : current));
    return findVariantByValues(variants, values) ?? variants.find((variant) => variant.optionValues[index] === value);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // What the form shows is what is sent: the radios as they are, whatever the page last drew.
    const form = new FormData(event.currentTarget);
    const optionValues = options.map((_, index) => String(form.get(optionParam(index)) ?? ""));
    const expected = resolveChosenVariant(product, optionValues);
    change({
      action: "add",
      productId: product.id,
      ...(hasOptions ? { optionValues } : {}),
      ...(hasOptions && expected.kind === "variant" ? { variantId: expected.variant.id } : {}),
    });
  };

  return (
    <form
      method="post"
      action="/basket/add"
      onSubmit={onSubmit}
      className="product-form"
      data-early={`product-${product.id}`}
    >
      <input type="hidden" name="productId" value={product.id} />
      <input type="hidden" name="returnTo" value={returnTo} />
      {options.map((option, index) => (
        <fieldset key={option.name} className="variant-picker__option">
          <legend>{option.name}</legend>
          {option.values.map((value) => {
            const leadsTo = variantFor(index, value);
            const isOutOfStock = !leadsTo || !canBeSold(leadsTo.stock);
            return (
              <label key={value} className="variant-picker__value">
                <input
                  type="radio"
                  name={optionParam(index)}
                  value={value}
                  checked={chosen.optionValues[index] === value}
                  onChange={() => {
                    if (leadsTo) onChoose(leadsTo);
                  }}
                />{" "}
                {value}
                {isOutOfStock ? " (out of stock)" : ""}
              </label>
            );
          })}
        </fieldset>
      ))}
      {choiceProblem ? (
        <p className="basket-error" role="alert">
          {choiceProblem}
        </p>
      ) : null}
      {hasOptions && !isEnhanced ? (
        <button
          type="submit"
          formMethod="get"
          formAction={productPath(product.slug)}
          className="button variant-picker__choose"
        >
          Choose
        </button>
      ) : null}
      <p
        className={
          isSellable ? "product-page__availability" : "product-page__availability product-page__availability--out"
        }
        data-testid="availability"
      >
        {availabilitySentence(availabilityOf(chosen.stock))}
      </p>
      {/* Without JavaScript the radios may say more than the page shows: the server answers for what they say. */}
      <button
        type="submit"
        className="button"
        disabled={!isSellable && (isEnhanced || !hasOptions)}
        aria-describedby={basketErrorId(product.id)}
      >
        Add to Basket
      </button>
      <BasketError productId={product.id} />
    </form>
  );
}
