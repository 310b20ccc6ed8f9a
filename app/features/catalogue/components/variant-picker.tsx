import {
  findVariantByValues,
  optionParam,
  productPath,
  type ProductOption,
  type ProductVariant,
} from "#shared/catalogue";
import { canBeSold } from "#shared/stock";

/**
 * One radio group per option (a fieldset whose legend is the option's name), as a GET form: without JavaScript the
 * "Choose" button sends the values and the page comes back with that variant; with JavaScript a choice is taken at
 * once (`onChoose`). A value whose variant (with the other values as chosen) has no stock left is still selectable,
 * and says "(out of stock)".
 */
export function VariantPicker({
  slug,
  options,
  variants,
  chosen,
  onChoose,
}: {
  slug: string;
  options: readonly ProductOption[];
  variants: readonly ProductVariant[];
  chosen: ProductVariant;
  onChoose: (variant: ProductVariant) => void;
}) {
  /** The variant a choice of `value` for option `index` leads to: the others kept, or the first with that value. */
  const variantFor = (index: number, value: string): ProductVariant | undefined => {
    const values = chosen.optionValues.map((current, position) => (position === index ? value : current));
    return findVariantByValues(variants, values) ?? variants.find((variant) => variant.optionValues[index] === value);
  };
  return (
    <form method="get" action={productPath(slug)} className="variant-picker">
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
      <noscript>
        <button type="submit" className="button variant-picker__choose">
          Choose
        </button>
      </noscript>
    </form>
  );
}
